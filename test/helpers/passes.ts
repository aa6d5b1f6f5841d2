/**
 * The API suite runs twice, on SQLite and again on MariaDB (TEST_DATABASE_URL). A file whose subject
 * does not depend on the suite's database (an SSH or TLS peer, Redis, a process of its own, a database
 * of its own, or no database at all) says so in its opening comment with a line ` * One pass: <why>`:
 * test/run-all.sh leaves it out of the MariaDB pass (it is not even loaded there). Single tests of a
 * file that runs in both passes use `onlyIn('sqlite')('name', fn)`.
 */
import { test } from '@jest/globals';

export const pass: 'sqlite' | 'mariadb' = process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite';

export const onlyIn = (which: 'sqlite' | 'mariadb') => (which === pass ? test : test.skip);
