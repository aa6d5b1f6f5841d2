/**
 * Migrations and entities agree: after the migrations ran at start, TypeORM's schema builder finds
 * nothing to change (the `migration:generate --check` of the stack notes), on SQLite and MariaDB.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => { t = await startApp({ CRON_ENABLED: '0' }, { emptyDatabase: true }); });
afterAll(async () => { await t?.close(); });

test(`no drift between entities and migrations (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, async () => {
  const ds = t.app.get<DataSource>(getDataSourceToken());
  expect(await ds.showMigrations()).toBe(false);
  const pending = await ds.driver.createSchemaBuilder().log();
  expect(pending.upQueries.map((q) => q.query)).toEqual([]);
});
