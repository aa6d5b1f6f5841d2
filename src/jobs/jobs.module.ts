import { Module } from '@nestjs/common';
import { SrvModule } from '../modules/srv/srv.module.js';
import { SessionCleanupJob } from './session-cleanup.job.js';
import { SslCheckJob } from './ssl-check.job.js';

/** Scheduled work; each job a one-line call into a module's service. */
@Module({ imports: [SrvModule], providers: [SessionCleanupJob, SslCheckJob] })
export class JobsModule {}
