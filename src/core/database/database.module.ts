import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { DataSourceOptions } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { MIGRATIONS } from './migrations/index.js';

/** DataSource options for either dialect; migrations (never synchronize) run at start. */
export function dataSourceOptions(cfg: AppConfig): DataSourceOptions {
  const common = { migrations: MIGRATIONS, migrationsRun: true, synchronize: false, logging: ['error' as const] };
  if (cfg.database.type === 'better-sqlite3') {
    return {
      ...common,
      type: 'better-sqlite3',
      database: cfg.database.database,
      // WAL: readers do not block the writer; a busy timeout instead of SQLITE_BUSY under load.
      prepareDatabase: (db: { pragma: (s: string) => unknown }) => {
        db.pragma('journal_mode = WAL');
        db.pragma('busy_timeout = 5000');
        db.pragma('foreign_keys = ON');
      },
    };
  }
  return { ...common, type: 'mariadb', url: cfg.database.url, timezone: 'Z', charset: 'utf8mb4_unicode_ci', extra: { connectionLimit: 10 } };
}

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (cfg: AppConfig) => ({ ...dataSourceOptions(cfg), autoLoadEntities: true }),
    }),
  ],
})
export class DatabaseModule {}
