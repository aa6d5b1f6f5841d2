import { Injectable } from '@nestjs/common';
import type { OutsideServiceView } from '../../contracts/outside.js';
import { Role } from '../../contracts/roles.js';
import { Rpc } from '../rpc/rpc.decorator.js';
import { AiReportClient } from './ai-report.client.js';
import { MailClient } from './mail.client.js';
import { TbankClient } from './tbank.client.js';
import { MetrikaClient } from './metrika.client.js';
import { RsyaClient } from './rsya.client.js';
import { YandexSearchClient } from './yandex-search.client.js';
import { WildberriesClient } from './wb.client.js';
import { WhoisClient } from './whois.client.js';

/** The settings answer of the outside services: configured or not, where they point; secrets never (masked or 'set'). */
@Injectable()
export class OutsideRpc {
  constructor(private readonly mail: MailClient, private readonly ai: AiReportClient, private readonly whois: WhoisClient, private readonly tbank: TbankClient, private readonly wb: WildberriesClient, private readonly metrika: MetrikaClient, private readonly rsya: RsyaClient, private readonly yandexSearch: YandexSearchClient) {}

  @Rpc('outside.getServices', {
    role: Role.admin,
    summary: "The outside services this console talks to and how they are configured: [{service, configured, target (credentials masked: smtp://user:***@host:port), credential?: 'set'|'not set', env: [variables], details}]; node agents are per server (the servers map)",
  })
  getServices(): OutsideServiceView[] {
    return [this.mail.describe(), this.ai.describe(), this.whois.describe(), this.tbank.describe(), this.wb.describe(), this.yandexSearch.describe(), this.metrika.describe(), this.rsya.describe()];
  }
}
