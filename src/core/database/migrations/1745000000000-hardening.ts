import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

const LOGIN_MAX = 64;

/**
 * Hardening (issue 7):
 * - logins are unique ignoring letter case, in the database itself so parallel registrations cannot
 *   race past it. SQLite: the `login` column is `COLLATE NOCASE` (its unique key and every `login = ?`
 *   then ignore case). MariaDB/MySQL: a `_ci` collation already does; a column created with another
 *   one (a database whose default is `_bin` or `_cs`) is set to utf8mb4_unicode_ci. Logins that
 *   already differ only in case keep the oldest account's spelling; the others get `-<uid>` appended
 *   (they must sign in with that login; the admin sees it under /users).
 *   NB: TypeORM does not read SQLite collations back, so a later migration that rebuilds `users` on
 *   SQLite (addColumn, changeColumn, ...) must declare `collation: 'NOCASE'` on `login` again;
 *   test/api/hardening-auth.e2e.ts inserts 'ADMIN' straight into the table and fails if it is lost.
 * - cron_tasks.cmd_secret: the credentials of a `curl=` task's URL, sealed (SecretBox); the cmd keeps
 *   the URL with them masked (docs/cron.md).
 */
export class Hardening1745000000000 implements MigrationInterface {
  name = 'Hardening1745000000000';

  async up(q: QueryRunner): Promise<void> {
    const sqlite = q.connection.driver.options.type === 'better-sqlite3';
    await this.renameCaseDuplicates(q);
    if (sqlite) {
      await q.changeColumn('users', 'login', new TableColumn({ ...col.str('login', LOGIN_MAX), collation: 'NOCASE' }));
    } else {
      const rows: Array<{ c: string | null }> = await q.query(
        "SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'users' AND COLUMN_NAME = 'login'",
      );
      if (!/_ci$/i.test(rows[0]?.c ?? '')) await q.query(`ALTER TABLE \`users\` MODIFY \`login\` varchar(${LOGIN_MAX}) NOT NULL COLLATE utf8mb4_unicode_ci`);
    }
    await q.addColumn('cron_tasks', new TableColumn(col.text('cmd_secret')));
  }

  /** Keeps the oldest spelling of each login that differs from another only in case; renames the rest `login-uid`. */
  private async renameCaseDuplicates(q: QueryRunner) {
    const users: Array<{ uid: number; login: string }> = await q.query('SELECT uid, login FROM users ORDER BY uid');
    const taken = new Set(users.map((u) => u.login.toLowerCase()));
    const seen = new Set<string>();
    for (const u of users) {
      const key = u.login.toLowerCase();
      if (!seen.has(key)) {
        seen.add(key);
        continue;
      }
      let n = 0;
      let name: string;
      do {
        const suffix = `-${u.uid}${n ? `-${n}` : ''}`;
        name = u.login.slice(0, LOGIN_MAX - suffix.length) + suffix;
        n++;
      } while (taken.has(name.toLowerCase()));
      taken.add(name.toLowerCase());
      await q.query('UPDATE users SET login = ? WHERE uid = ?', [name, u.uid]);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('cron_tasks', 'cmd_secret');
    if (q.connection.driver.options.type === 'better-sqlite3') {
      await q.changeColumn('users', 'login', new TableColumn(col.str('login', LOGIN_MAX)));
    }
  }
}
