import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentClient } from './agent.client.js';
import { AiReportClient } from './ai-report.client.js';
import { AnswerCache } from './answer-cache.js';
import { MailClient } from './mail.client.js';
import { OutsideCacheEntity } from './outside-cache.entity.js';
import { OutsideRpc } from './outside.rpc.js';
import { TbankClient } from './tbank.client.js';
import { MetrikaClient } from './metrika.client.js';
import { RsyaClient } from './rsya.client.js';
import { YandexSearchClient } from './yandex-search.client.js';
import { WildberriesClient } from './wb.client.js';
import { WhoisClient } from './whois.client.js';

/**
 * The outside-service clients (docs/architecture.md "Outside services"), one per service, and the
 * answer cache they share. Areas import this module and inject the client they need.
 */
@Module({
  imports: [TypeOrmModule.forFeature([OutsideCacheEntity])],
  providers: [AnswerCache, AgentClient, AiReportClient, MailClient, WhoisClient, TbankClient, WildberriesClient, YandexSearchClient, MetrikaClient, RsyaClient, OutsideRpc],
  exports: [AnswerCache, AgentClient, AiReportClient, MailClient, WhoisClient, TbankClient, WildberriesClient, YandexSearchClient, MetrikaClient, RsyaClient],
})
export class OutsideModule {}
