import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import type { DataSourceOptions } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { DbOutageSubscriber } from './db-outage.js';
import { MIGRATIONS } from './migrations/index.js';
import { TypeOrmJsonLogger } from './typeorm-logger.js';

/**
 * The SQLite file is readable by its owner only (0600): created so before SQLite opens it, and set so
 * on a file left by an older version. SQLite creates the WAL and shared-memory files with the mode
 * of the database file; ones left behind are set too.
 */
export function ensurePrivateSqliteFile(file: string) {
  if (file === ':memory:' || file === '') return;
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    if (existsSync(f)) chmodSync(f, 0o600);
  }
}

/** DataSource options for either dialect; migrations (never synchronize) run at start. */
export function dataSourceOptions(cfg: AppConfig): DataSourceOptions {
  // Logged through the JSON logger, never with query parameters (typeorm-logger.ts).
  // The outage subscriber tells db-outage.ts when queries succeed again (one log line per outage).
  const common = { migrations: MIGRATIONS, migrationsRun: true, synchronize: false, logger: new TypeOrmJsonLogger(), subscribers: [DbOutageSubscriber] };
  if (cfg.database.type === 'better-sqlite3') {
    ensurePrivateSqliteFile(cfg.database.database);
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
