import { Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { AuthService } from '../core/auth/auth.service.js';

@Injectable()
export class SessionCleanupJob {
  constructor(private readonly auth: AuthService) {}

  /** Expired sessions are refused on use; this removes their rows. */
  @Cron(CronExpression.EVERY_HOUR)
  run() {
    return this.auth.purgeExpired();
  }
}
