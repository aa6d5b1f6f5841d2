/** Fresh databases on a MariaDB/MySQL server for tests and benches (test/helpers/app.ts, cluster.ts). */
import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';

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

