/** Fresh databases on a MariaDB/MySQL server for tests and benches (test/helpers/app.ts, cluster.ts). */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { loadConfig } from '../../config/config.js';
import { dataSourceOptions } from '../../src/core/database/database.module.js';

/** A new database on the server of `url` (MariaDB/MySQL), dropped by `drop()`. */
export async function freshMysql(url: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const u = new URL(url.replace(/^mariadb:/, 'mysql:'));
  const name = `t_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const conn = await createConnection({ host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) });
  await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await conn.end();
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = await createConnection({ host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) });
      await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await c.end();
    },
  };
}


/**
 * A new database on the server of `url` holding exactly what the console's migrations make, for an app
 * under test. The migrations run once per set of migrations, into a template database `t_tpl_<hash of
 * the migration files>` (built under a named lock, kept between runs; templates of other migration sets are
 * dropped a day after they were built); each database is then a copy of the template's tables (SHOW CREATE TABLE: columns,
 * indexes, full-text keys and foreign keys as the migrations made them) and rows (the migrations table
 * and what migrations seed). About 1-2 s instead of the 25-30 s InnoDB spends on the DDL of every
 * migration (each ALTER rebuilds its table). A template holding a trigger, view or routine is refused
 * rather than copied halfway. schema.e2e.ts and the cluster harness still start on an empty database:
 * the migrations themselves run there, at the app's start, as in production.
 */
export async function migratedMysql(url: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const tpl = await template(url);
  const fresh = await freshMysql(url);
  const name = new URL(fresh.url).pathname.slice(1);
  const conn = await connect(url);
  try {
    await conn.query('SET FOREIGN_KEY_CHECKS = 0');
    const [tables] = await conn.query(`SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' AND TABLE_NAME <> '_tpl_ready'`, [tpl]);
    await conn.query(`USE \`${name}\``);
    for (const { t } of tables as Array<{ t: string }>) {
      const [[row]] = (await conn.query(`SHOW CREATE TABLE \`${tpl}\`.\`${t}\``)) as unknown as [[Record<string, string>]];
      await conn.query(row['Create Table']);
      await conn.query(`INSERT INTO \`${t}\` SELECT * FROM \`${tpl}\`.\`${t}\``);
    }
  } catch (e) {
    await fresh.drop();
    throw e;
  } finally {
    await conn.end();
  }
  return fresh;
}

const connect = (url: string) => {
  const u = new URL(url.replace(/^mariadb:/, 'mysql:'));
  return createConnection({ host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) });
};

const MIGRATIONS_DIR = join(import.meta.dirname, '..', '..', 'src', 'core', 'database', 'migrations');

/** The template's name, built first when missing (one builder at a time across test processes). */
async function template(url: string): Promise<string> {
  const hash = createHash('sha256');
  for (const f of readdirSync(MIGRATIONS_DIR).sort()) hash.update(f).update(readFileSync(join(MIGRATIONS_DIR, f)));
  const name = `t_tpl_${hash.digest('hex').slice(0, 16)}`;
  const conn = await connect(url);
  try {
    const ready = async () => ((await conn.query(`SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = '_tpl_ready'`, [name]))[0] as unknown[]).length > 0;
    if (await ready()) return name;
    await conn.query(`SELECT GET_LOCK('console_test_template', 600)`);
    try {
      if (await ready()) return name;
      // templates of other migration sets, a day old (a run of another checkout may be cloning a newer one)
      const [old] = await conn.query(`SELECT TABLE_SCHEMA AS s FROM information_schema.TABLES WHERE TABLE_SCHEMA LIKE 't\\_tpl\\_%' AND TABLE_NAME = '_tpl_ready' AND CREATE_TIME < NOW() - INTERVAL 1 DAY`);
      for (const { s } of old as Array<{ s: string }>) await conn.query(`DROP DATABASE IF EXISTS \`${s}\``);
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``); // a build that died halfway
      await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      const u = new URL(url.replace(/^mariadb:/, 'mysql:'));
      u.pathname = `/${name}`;
      const dataDir = mkdtempSync(join(tmpdir(), 'tpl-'));
      try {
        const cfg = loadConfig({ DATABASE_URL: u.toString(), DATA_DIR: dataDir, LOG_LEVEL: 'error' });
        const ds = new DataSource({ ...dataSourceOptions(cfg), entities: [] } as DataSourceOptions);
        await ds.initialize(); // runs the migrations (migrationsRun), as the app's start does
        await ds.destroy();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
      const [other] = await conn.query(
        `SELECT (SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ?) + (SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ?) + (SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ?) AS n`,
        [name, name, name],
      );
      if (Number((other as Array<{ n: number }>)[0].n) > 0) throw new Error(`${name}: the migrations made triggers, views or routines; migratedMysql copies tables only: teach it those`);
      await conn.query(`CREATE TABLE \`${name}\`.\`_tpl_ready\` (x INT)`);
      return name;
    } finally {
      await conn.query(`SELECT RELEASE_LOCK('console_test_template')`);
    }
  } finally {
    await conn.end();
  }
}
