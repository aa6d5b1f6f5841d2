import { Module } from '@nestjs/common';
import { SessionCleanupJob } from './session-cleanup.job.js';

/** Scheduled work; each job a one-line call into a module's service. */
@Module({ providers: [SessionCleanupJob] })
export class JobsModule {}
