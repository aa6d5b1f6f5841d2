import { Module, type DynamicModule } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import type { AppConfig } from '../config/config.js';
import { ConfigModule } from './core/config.module.js';
import { CoreModule } from './core/core.module.js';
import { DatabaseModule } from './core/database/database.module.js';
import { StorageModule } from './core/storage/storage.module.js';
import { AREA_MODULES } from './modules/index.js';
import { JobsModule } from './jobs/jobs.module.js';
import { GatewaysModule } from './gateways/gateways.module.js';

@Module({})
export class AppModule {
  static forRoot(cfg: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(cfg),
        DatabaseModule,
        CoreModule,
        // The one image store (docs/architecture.md "Storage"): its methods and routes exist whichever areas use it.
        StorageModule,
        ScheduleModule.forRoot(),
        ...AREA_MODULES,
        GatewaysModule,
        JobsModule,
        // The built UI is not a module: bootstrap.ts serves it (uiStatic, pre-compressed copies and the SPA fallback).
      ],
    };
  }
}
