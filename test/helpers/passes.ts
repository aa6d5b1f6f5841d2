/**
 * The API suite runs twice, on SQLite and again on MariaDB (TEST_DATABASE_URL). A file whose subject
 * does not depend on the suite's database (it brings its own server, or always uses MariaDB, or talks
 * to no database at all) runs its tests in one pass only: `onlyIn('sqlite')('name', fn)`.
 */
import { test } from '@jest/globals';

export const pass: 'sqlite' | 'mariadb' = process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite';

export const onlyIn = (which: 'sqlite' | 'mariadb') => (which === pass ? test : test.skip);
