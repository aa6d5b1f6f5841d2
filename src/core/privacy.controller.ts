import { Controller, Get, Inject } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import type { PrivacyInfo } from '../contracts/privacy.js';
import { Public } from './auth/actor.js';

/**
 * GET /api/privacy (public): what the /privacy page (001 §2 "Privacy policy") fills in from the
 * configuration: the operator's name and e-mail and the policy URL (null where unset).
 */
@Controller('privacy')
export class PrivacyController {
  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig) {}

  @Public()
  @Get()
  info(): PrivacyInfo {
    const p = this.cfg.privacy;
    return { operator_name: p.operatorName, operator_email: p.operatorEmail, policy_url: p.policyUrl };
  }
}
