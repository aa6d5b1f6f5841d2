import { Injectable } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { SslService } from '../modules/srv/ssl.service.js';

@Injectable()
export class SslCheckJob {
  constructor(private readonly ssl: SslService) {}

  /** Daily certificate expiry check of the SSL hosts (000 §2 /srv/ssl_check). */
  @Cron('0 15 6 * * *')
  run() {
    return this.ssl.scheduledCheck();
  }
}
