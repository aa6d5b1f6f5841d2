/** Leases: one holder at a time across instances sharing a database; the holder renews; expiry frees it. */
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { LeaseService } from '../../src/core/lease.service.js';
import { sleep } from '../helpers/wait.js';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => { t = await startApp({ CRON_ENABLED: '0' }); });
afterAll(async () => { await t?.close(); });

test(`one holder at a time (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, async () => {
  const ds = t.app.get<DataSource>(getDataSourceToken());
  const a = new LeaseService(ds);
  const b = new LeaseService(ds);
  expect(await a.acquire('job', 300)).toBe(true);
  expect(await b.acquire('job', 300)).toBe(false);
  expect(await a.acquire('job', 300)).toBe(true); // the holder renews
  expect(await b.acquire('other', 300)).toBe(true);
  await sleep(400);
  expect(await b.acquire('job', 300)).toBe(true); // expired: free for another
  expect(await a.acquire('job', 300)).toBe(false);
});
