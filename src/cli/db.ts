/** A DataSource for the command-line tools: the configured database (same env as the server), migrations run. */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../config/config.js';
import { dataSourceOptions } from '../core/database/database.module.js';
import { StorageFileEntity } from '../core/storage/storage-file.entity.js';
import { BANNER_ENTITIES } from '../modules/banners/banners.entities.js';
import { COMPILATION_ENTITIES } from '../modules/compilations/compilations.entities.js';
import { CONTENT_ENTITIES } from '../modules/content/content.entities.js';
import { StreamBatchEntity, StreamSiteEntity } from '../modules/input-stream/input-stream.entities.js';

export async function openDatabase(env: NodeJS.ProcessEnv = process.env): Promise<DataSource> {
  const cfg = loadConfig(env);
  const ds = new DataSource({ ...dataSourceOptions(cfg), entities: [...CONTENT_ENTITIES, StreamSiteEntity, StreamBatchEntity, ...COMPILATION_ENTITIES, ...BANNER_ENTITIES, StorageFileEntity], migrationsRun: false, logger: 'advanced-console', logging: ['error', 'warn'] } as ConstructorParameters<typeof DataSource>[0]);
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  return ds;
}
