/**
 * Investments (issue 22): a broker account holding 300 bonds with 10 years of coupons each (a third
 * monthly, a third quarterly, a third semi-annual: 18,000 coupon rows), on SQLite and on MariaDB
 * (scratch database on 127.0.0.1:3306 when it answers). The catalogue, schedules and prices are written
 * straight into the tables (what the refresh job keeps); the broker's GetAccounts / GetPortfolio are
 * answered by a small local server speaking the REST shape, read once and then from the 600 s cache.
 * Over HTTP (RPC), one call at a time, after 2 warm-up calls: the account page (getPortfolio, with and
 * without the schedules), the forecast (with and without a size), the calendar, a screener page, and
 * the same account entered by hand (a local account). Goals: account page p95 < 200 ms warm, forecast
 * p95 < 100 ms. Run: `npm run bench -- invest` (INVEST_BENCH_BONDS to change the size).
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import { createServer, type Server } from 'node:http';
import { loadavg } from 'node:os';
import type { DataSource } from 'typeorm';
import { decimalToQuotation } from '../src/core/outside/tbank.wire.js';
import { prng } from '../src/core/prng.js';
import { machine, onScratchMariaDb, percentile, rpcCaller, startBenchApp, writeSection } from './lib.js';

const BONDS = Number(process.env.INVEST_BENCH_BONDS ?? 300);
const RUNS = Number(process.env.INVEST_BENCH_RUNS ?? 30);
const YEARS = 10;
const TOKEN = 'bench-invest-token';
const ACCOUNT = '2000000001';
const DAY = 86_400_000;
const today = new Date().toISOString().slice(0, 10);
const dayFrom = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);
const figiOf = (i: number) => `BBGBENCH${String(i).padStart(4, '0')}`;

interface Gen { figi: string; ticker: string; perYear: number; value: string; price: string; qty: number; maturity: string }

function generate(): Gen[] {
  const r = prng(7);
  return Array.from({ length: BONDS }, (_, i) => {
    const perYear = [12, 4, 2][i % 3];
    const cp = 4 + r() * 14; // 4-18 % a year
    return {
      figi: figiOf(i), ticker: `RU000BN${String(i).padStart(5, '0')}`, perYear,
      value: (Math.round((cp * 10) / perYear * 100) / 100).toFixed(2), // per bond of 1000
      price: (85 + r() * 25).toFixed(3), qty: 1 + Math.floor(r() * 200), maturity: dayFrom(today, 365 * YEARS - Math.floor(r() * 30)),
    };
  });
}

/** The broker's accounts and the portfolio of the 300 bonds (the only calls the account page makes). */
function startBroker(bonds: Gen[]): Promise<{ url: string; server: Server; calls: () => number }> {
  let calls = 0;
  const m = (v: string) => ({ currency: 'rub', ...decimalToQuotation(v) });
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      calls++;
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return void res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 16, message: 'bad token', description: 40003 }));
      const send = (o: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(o));
      if (req.url?.endsWith('UsersService/GetAccounts')) return send({ accounts: [{ id: ACCOUNT, name: 'Bench', type: 'ACCOUNT_TYPE_TINKOFF', status: 'ACCOUNT_STATUS_OPEN', openedDate: '2020-01-01T00:00:00Z' }] });
      if (req.url?.endsWith('OperationsService/GetPortfolio')) {
        return send({
          accountId: ACCOUNT,
          positions: bonds.map((b) => ({ figi: b.figi, instrumentType: 'bond', ticker: b.ticker, quantity: decimalToQuotation(String(b.qty)), averagePositionPrice: m('990.5'), currentPrice: m((Number(b.price) * 10).toFixed(2)), currentNkd: m('3.21') })),
        });
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 12, message: 'not implemented', description: '' }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server, calls: () => calls })));
}

/** The catalogue rows, their schedules (10 years, from a year back) and prices, as the refresh job leaves them. */
async function fill(ds: DataSource, bonds: Gen[]): Promise<number> {
  const t0 = Date.now();
  const now = Date.now();
  for (let i = 0; i < bonds.length; i += 100) {
    const part = bonds.slice(i, i + 100);
    await ds.query(
      `INSERT INTO invest_bonds (figi, ticker, class_code, isin, uid, name, currency, nominal, nominal_currency, lot, coupon_in_year, maturity_date, placement_date, risk_level, last_price, price_time, in_catalogue, ts_update_info, ts_update_coupon, ts_update_price, ts_change_coupon)
       VALUES ${part.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      part.flatMap((b, j) => [b.figi, b.ticker, 'TQCB', `RU000BENCH${i + j}`, `uid-${b.figi}`, `Bench bond ${i + j}`, 'rub', '1000', 'rub', 1, b.perYear, b.maturity, dayFrom(today, -400), (i + j) % 4, b.price, now, 1, now, now, now, now]),
    );
  }
  let n = 0;
  for (const b of bonds) {
    const period = Math.round(365 / b.perYear);
    const rows: unknown[] = [];
    let num = 1;
    for (let d = dayFrom(today, -365); d <= b.maturity; d = dayFrom(d, period)) rows.push(b.figi, num++, d, dayFrom(d, -7), dayFrom(d, -period), d, b.value, 'rub', 'CONSTANT', period);
    for (let k = 0; k < rows.length; k += 10 * 500) {
      const part = rows.slice(k, k + 10 * 500);
      await ds.query(`INSERT INTO invest_coupons (figi, number, coupon_date, fix_date, start_date, end_date, value, currency, coupon_type, period) VALUES ${Array.from({ length: part.length / 10 }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`, part);
    }
    n += rows.length / 10;
  }
  if (ds.options.type === 'mariadb') for (const t of ['invest_bonds', 'invest_coupons']) await ds.query(`ANALYZE TABLE ${t}`);
  else await ds.query('ANALYZE');
  console.log(`filled ${bonds.length} bonds and ${n} coupons in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return n;
}

async function measure(db: string, env: Record<string, string>) {
  const bonds = generate();
  const broker = await startBroker(bonds);
  const app = await startBenchApp({ ...env, INVEST_API_URL: broker.url, INVEST_TOKEN: TOKEN, TZ: 'UTC' });
  try {
    const ds = app.app.get<DataSource>(getDataSourceToken());
    const call = rpcCaller(app.url, app.hash);
    const coupons = await fill(ds, bonds);
    // a local account holding the same 300 bonds by ticker
    const local = (await call('invest.User.saveLocalAccount', { name: 'Bench local' })).result;
    for (const b of bonds) await call('invest.User.savePosition', { Id_account: local.Id, ticker: b.ticker, quantity: String(b.qty), price: '99.5' });
    const rows: Array<{ label: string; cold: number; p50: number; p95: number; size: string; goal?: number }> = [];
    const time = async (label: string, method: string, args: unknown, goal?: number, check?: (r: any) => void) => {
      const ms: number[] = [];
      let cold = 0;
      let last: { result: any; bytes: number } | null = null;
      for (let i = 0; i < RUNS + 2; i++) {
        const t0 = performance.now();
        last = await call(method, args, i === RUNS + 1);
        if (i === 0) cold = performance.now() - t0;
        if (i >= 2) ms.push(performance.now() - t0);
      }
      check?.(last!.result);
      ms.sort((a, b) => a - b);
      const row = { label, cold, p50: percentile(ms, 0.5), p95: percentile(ms, 0.95), size: `${(last!.bytes / 1024).toFixed(0)} KB`, goal };
      console.log(`[${db}] ${label}: first ${cold.toFixed(1)} p50 ${row.p50.toFixed(1)} p95 ${row.p95.toFixed(1)} ms, ${row.size}`);
      rows.push(row);
    };
    const bondsOk = (r: any) => { if (r.bonds.length !== BONDS || r.bonds.some((b: any) => !b.known)) throw new Error('the account page does not hold every bond'); };
    const forecastOk = (r: any) => { if (!(r.total > 0) || r.bonds.filter((b: any) => b.included).length !== BONDS) throw new Error('the forecast does not count every bond'); };
    await time('account page: getPortfolio (with the coupon schedules)', 'invest.User.getPortfolio', { accountId: ACCOUNT }, 200, bondsOk);
    await time('account page without the schedules (joinCoupon 0)', 'invest.User.getPortfolio', { accountId: ACCOUNT, joinCoupon: 0 }, 200, bondsOk);
    await time('forecast (quantities held)', 'invest.Item.getForecast', { accountId: ACCOUNT }, 100, forecastOk);
    await time('forecast with a size of 30,000,000', 'invest.Item.getForecast', { accountId: ACCOUNT, size: 30_000_000 }, 100, forecastOk);
    await time('calendar (every coupon and maturity, month by month)', 'invest.Item.getCalendar', { accountId: ACCOUNT });
    await time('screener page (default sort)', 'invest.Item.getBondsFilter', {});
    await time('local account page (300 positions by ticker)', 'invest.User.getPortfolio', { accountId: local.accountId }, 200, bondsOk);
    await time('local account forecast', 'invest.Item.getForecast', { accountId: local.accountId }, 100, forecastOk);
    return { db, rows, coupons, brokerCalls: broker.calls() };
  } finally {
    await app.close();
    broker.server.close();
  }
}

type Measured = Awaited<ReturnType<typeof measure>>;
const out: string[] = [];
function table(m: Measured) {
  out.push(`### ${m.db}`, '', '| call | answer | first call ms | p50 ms | p95 ms | goal |', '| --- | ---: | ---: | ---: | ---: | --- |');
  for (const x of m.rows) out.push(`| ${x.label} | ${x.size} | ${x.cold.toFixed(0)} | ${x.p50.toFixed(1)} | ${x.p95.toFixed(1)} | ${x.goal ? `< ${x.goal} ms ${x.p95 < x.goal ? 'met' : '**missed**'}` : ''} |`);
  out.push('', `Broker calls in the whole run: ${m.brokerCalls} (accounts and the portfolio once each; every later read from the 600 s cache).`, '');
}

async function main() {
  const load0 = loadavg();
  const results = process.env.INVEST_BENCH_ONLY === 'mariadb' ? [] : [await measure('SQLite', {})];
  const maria = process.env.INVEST_BENCH_ONLY === 'sqlite' ? { skipped: 'INVEST_BENCH_ONLY=sqlite' } : await onScratchMariaDb((url) => measure('MariaDB', { DATABASE_URL: url }));
  const coupons = results[0]?.coupons ?? ('value' in maria ? maria.value.coupons : 0);
  out.push(
    '## Investments: an account of 300 bonds with 10 years of coupons (`bench/invest.ts`)',
    '',
    `${machine()}, load average ${load0.map((x) => x.toFixed(1)).join(' ')} at the start and ${loadavg().map((x) => x.toFixed(1)).join(' ')} at the end. ` +
    `${BONDS} bonds (a third paying monthly, a third quarterly, a third twice a year) with their schedules from a year back to maturity in ${YEARS} years: ${coupons.toLocaleString('en')} coupon rows. ` +
    `${RUNS} calls each after 2 warm-up calls, over HTTP (RPC), one at a time; the broker's portfolio from the answer cache (warm). ` +
    'Goals (issue 22): the account page p95 < 200 ms warm, the forecast p95 < 100 ms. The account page answers every coupon of every bond (the contract\'s `coupons`). ' +
    'Warm means: the schedules come from the in-process cache keyed by each row\'s schedule version (read and parsed once per change), a bond\'s coupon percent and yield ' +
    '(Newton) are kept per price, schedule and day, and the forecast sums in integers (docs/invest.md "Performance"). The first call of the first measure reads the broker, ' +
    'the tables and parses the schedules. ' +
    (load0[0] > 1.5 ? `**Noisy run**: other work shared the 2 cores (load ${load0[0].toFixed(1)} at the start); p95 is the figure it disturbs most. ` : ''),
    '',
  );
  for (const m of results) table(m);
  if ('skipped' in maria) out.push(`MariaDB: skipped (${maria.skipped}).`);
  else table(maria.value);
  writeSection('invest', out.join('\n'));
}

main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
