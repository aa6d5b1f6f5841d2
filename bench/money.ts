/**
 * Money (issue 21): one box with 1,000,000 transactions over five years (2021-2025, about 550 a day;
 * 30% income; 0-3 tags each from 40 tags drawn with a skew), on SQLite and on MariaDB (scratch database
 * on 127.0.0.1:3306 when it answers). Over HTTP (RPC), one call at a time: pages of the box (first,
 * last, middle, 50 random pages, by type, a month, by tag, by text), the year report (per month, per
 * day, one tag), five years per month, tag suggestions, and writes on the full box (one transaction;
 * a 10,000-row CSV import). Goals: a page p95 < 50 ms, the year report p95 < 300 ms.
 * The rows are written straight into the tables (multi-row INSERTs), the derived tables (day sums,
 * tag-day sums, box tags, balance) computed from them by SQL, then checked against the raw rows.
 * Run: `npm run bench -- money` (MONEY_BENCH_N to change the size).
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import { request } from 'node:http';
import { loadavg } from 'node:os';
import type { DataSource } from 'typeorm';
import { prng } from '../src/core/prng.js';
import { machine, onScratchMariaDb, percentile, startBenchApp, writeSection } from './lib.js';

const N = Number(process.env.MONEY_BENCH_N ?? 1_000_000);
const RUNS = Number(process.env.MONEY_BENCH_RUNS ?? 30);
const CHUNK = 1000;
const DAYS = 1826; // 2021-01-01 .. 2025-12-31
const START = Date.UTC(2021, 0, 1);
const TAGS = Array.from({ length: 40 }, (_, i) => ['food', 'rent', 'salary', 'taxi', 'cafe', 'fuel', 'market', 'gifts', 'travel', 'health'][i % 10] + (i < 10 ? '' : `-${Math.floor(i / 10)}`));
const dayOf = (i: number) => new Date(START + i * 86_400_000).toISOString().slice(0, 10);
const WORDS = ['Магазин', 'Такси', 'Кафе', 'Аренда', 'Зарплата', 'Бензин', 'Подарок', 'Аптека', 'Рынок', 'Билеты'];

async function fill(ds: DataSource, bid: number, uid: number, log: (s: string) => void) {
  const r = prng(42);
  const t0 = Date.now();
  const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
  let trid = Number((await ds.query('SELECT COALESCE(MAX(trid), 0) AS m FROM money_transactions'))[0].m);
  for (let i = 0; i < N; i += CHUNK) {
    const n = Math.min(CHUNK, N - i);
    const rows: unknown[] = [];
    const relay: unknown[] = [];
    for (let j = 0; j < n; j++) {
      const k = i + j;
      const day = dayOf(Math.floor((k / N) * DAYS));
      const tags: string[] = [];
      const nt = Math.floor(r() * 4);
      for (let q = 0; q < nt; q++) {
        const g = TAGS[Math.floor(TAGS.length * r() ** 2)];
        if (!tags.includes(g)) tags.push(g);
      }
      const type = r() < 0.3 ? 1 : 0;
      const val = 1 + Math.floor(r() ** 3 * 5_000_000);
      trid++;
      rows.push(trid, bid, uid, type, val, tags.join(','), day, `${WORDS[Math.floor(r() * 10)]} ${k}`, now, now);
      for (const g of tags) relay.push(trid, g, bid, day, type, val);
    }
    await ds.query(`INSERT INTO money_transactions (trid, bid, uid, type, val, tags, time_set, description, time_create, time_update) VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`, rows);
    for (let x = 0; x < relay.length; x += 6 * 2000) {
      const part = relay.slice(x, x + 6 * 2000);
      await ds.query(`INSERT INTO money_tag_relay (trid, tag, bid, time_set, type, val) VALUES ${Array.from({ length: part.length / 6 }, () => '(?, ?, ?, ?, ?, ?)').join(', ')}`, part);
    }
    if ((i / CHUNK) % 100 === 0) log(`${i + n} / ${N} transactions (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
  // the derived rows, as the writes keep them (money-store.ts), computed from the raw rows in SQL
  const sums = (t: string) => `SUM(CASE WHEN ${t}.type = 1 THEN ${t}.val ELSE 0 END), SUM(CASE WHEN ${t}.type = 0 THEN ${t}.val ELSE 0 END), SUM(CASE WHEN ${t}.type = 1 THEN 1 ELSE 0 END), SUM(CASE WHEN ${t}.type = 0 THEN 1 ELSE 0 END)`;
  await ds.query(`INSERT INTO money_days (bid, day, income, expense, n_income, n_expense) SELECT t.bid, t.time_set, ${sums('t')} FROM money_transactions t WHERE t.bid = ? GROUP BY t.bid, t.time_set`, [bid]);
  await ds.query(`INSERT INTO money_tag_days (bid, tag, day, income, expense, n_income, n_expense) SELECT r.bid, r.tag, r.time_set, ${sums('t')} FROM money_tag_relay r JOIN money_transactions t ON t.trid = r.trid WHERE r.bid = ? GROUP BY r.bid, r.tag, r.time_set`, [bid]);
  await ds.query(`INSERT INTO money_tag_days (bid, tag, day, income, expense, n_income, n_expense) SELECT t.bid, '', t.time_set, ${sums('t')} FROM money_transactions t WHERE t.bid = ? AND t.tags = '' GROUP BY t.bid, t.time_set`, [bid]);
  await ds.query('INSERT INTO money_box_tags (bid, tag, n) SELECT bid, tag, COUNT(*) FROM money_tag_relay WHERE bid = ? GROUP BY bid, tag', [bid]);
  const [tot] = await ds.query('SELECT SUM(CASE WHEN type = 1 THEN val ELSE -val END) AS b, COUNT(*) AS n FROM money_transactions WHERE bid = ?', [bid]);
  await ds.query('UPDATE money_boxes SET balance = ?, tx_count = ? WHERE bid = ?', [String(tot.b), Number(tot.n), bid]);
  if (ds.options.type === 'mariadb') for (const t of ['money_transactions', 'money_tag_relay', 'money_days', 'money_tag_days', 'money_box_tags']) await ds.query(`ANALYZE TABLE ${t}`);
  else await ds.query('ANALYZE');
  return (Date.now() - t0) / 1000;
}

/** The derived rows agree with the raw rows (sums and counts), after the bench's own writes too. */
async function check(ds: DataSource, bid: number) {
  const [raw] = await ds.query('SELECT SUM(CASE WHEN type = 1 THEN val ELSE -val END) AS b, COUNT(*) AS n FROM money_transactions WHERE bid = ?', [bid]);
  const [days] = await ds.query('SELECT SUM(income) - SUM(expense) AS b, SUM(n_income) + SUM(n_expense) AS n FROM money_days WHERE bid = ?', [bid]);
  const [box] = await ds.query('SELECT balance AS b, tx_count AS n FROM money_boxes WHERE bid = ?', [bid]);
  const [tags] = await ds.query('SELECT (SELECT SUM(n) FROM money_box_tags WHERE bid = ?) AS a, (SELECT COUNT(*) FROM money_tag_relay WHERE bid = ?) AS b', [bid, bid]);
  const same = [raw, days, box].every((x) => String(x.b) === String(raw.b) && Number(x.n) === Number(raw.n)) && Number(tags.a) === Number(tags.b);
  if (!same) throw new Error(`derived rows disagree: ${JSON.stringify({ raw, days, box, tags })}`);
  return { balance: String(raw.b), count: Number(raw.n) };
}

async function measure(db: string, env: Record<string, string>) {
  const app = await startBenchApp(env);
  try {
    const ds = app.app.get<DataSource>(getDataSourceToken());
    // one connection per call (no pooled socket left idle across the fill, which holds the event loop)
    const u = new URL(app.url);
    const call = (method: string, args: unknown) => new Promise<any>((resolve, reject) => {
      const body = JSON.stringify({ methods: [method], args: [args], host: 0 });
      const req = request({ host: u.hostname, port: u.port, path: '/api', method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), User: app.hash } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          try {
            const [e] = JSON.parse(text) as [{ status: string; result: any; message?: string }];
            if (e.status !== 'ok') reject(new Error(`${method}: ${e.message}`));
            else resolve(e.result);
          } catch (err) { reject(err); }
        });
      });
      req.on('error', reject);
      req.end(body);
    });
    const bid = (await call('money.boxUpdate', { title: 'Bench', description: `${N} transactions` })).bid as number;
    const uid = Number((await ds.query("SELECT uid FROM users WHERE login = 'admin'"))[0].uid);
    const fillS = await fill(ds, bid, uid, (s) => console.log(`[${db}] ${s}`));
    await check(ds, bid);
    const rows: Array<{ label: string; cold: number; p50: number; p95: number; count: string; goal?: number }> = [];
    const time = async (label: string, method: string, args: (i: number) => unknown, runs = RUNS, goal?: number) => {
      const ms: number[] = [];
      let last: any;
      let cold = 0;
      for (let i = 0; i < runs + 2; i++) {
        const t0 = performance.now();
        last = await call(method, args(i));
        if (i === 0) cold = performance.now() - t0;
        if (i >= 2) ms.push(performance.now() - t0);
      }
      ms.sort((a, b) => a - b);
      const count = last?.count !== undefined ? Number(last.count).toLocaleString('en') : last?.totals ? `${Number(last.totals.count).toLocaleString('en')} in ${last.periods.length} periods, ${last.tag_rows.length} tags` : Array.isArray(last) ? `${last.length} tags` : '';
      const row = { label, cold, p50: percentile(ms, 0.5), p95: percentile(ms, 0.95), count, goal };
      console.log(`[${db}] ${label}: p50 ${row.p50.toFixed(1)} p95 ${row.p95.toFixed(1)} ms`);
      rows.push(row);
    };
    const pages = Math.ceil(N / 20);
    const r = prng(3);
    const randomPages = Array.from({ length: 60 }, () => 1 + Math.floor(r() * pages));
    await time('page 1 (20 newest)', 'money.getTransactions', () => ({ bid, p_: 1 }), RUNS, 50);
    await time(`last page (p_ ${pages})`, 'money.getTransactions', () => ({ bid, p_: pages }), RUNS, 50);
    await time(`middle page (p_ ${Math.floor(pages / 2)})`, 'money.getTransactions', () => ({ bid, p_: Math.floor(pages / 2) }), RUNS, 50);
    await time('random pages (a different p_ each call)', 'money.getTransactions', (i) => ({ bid, p_: randomPages[i] }), 50, 50);
    await time('income only, random pages', 'money.getTransactions', (i) => ({ bid, type: 1, p_: 1 + (randomPages[i] % Math.floor(pages * 0.3)) }), RUNS, 50);
    await time('one month (2024-06), page 2', 'money.getTransactions', () => ({ bid, from: '2024-06-01', to: '2024-06-30', p_: 2 }), RUNS, 50);
    await time(`tag "${TAGS[0]}" (most used), page 1`, 'money.getTransactions', () => ({ bid, tags: TAGS[0], p_: 1 }), RUNS, 50);
    await time(`tag "${TAGS[39]}" (rare), page 1`, 'money.getTransactions', () => ({ bid, tags: TAGS[39], p_: 1 }), RUNS, 50);
    await time(`tag "${TAGS[0]}" in one month (a report's bar), page 1`, 'money.getTransactions', () => ({ bid, tags: TAGS[0], from: '2025-03-01', to: '2025-03-31', p_: 1 }), RUNS, 50);
    await time('text in the description ("Аптека 9"), page 1', 'money.getTransactions', () => ({ bid, q: 'Аптека 9', p_: 1 }), 5);
    await time('year report 2025 per month', 'money.getReport', () => ({ bid, from: '2025-01-01', to: '2025-12-31', group: 'month' }), RUNS, 300);
    await time('year report 2025 per day', 'money.getReport', () => ({ bid, from: '2025-01-01', to: '2025-12-31', group: 'day' }), RUNS, 300);
    await time(`year report 2025, tag "${TAGS[3]}"`, 'money.getReport', () => ({ bid, from: '2025-01-01', to: '2025-12-31', tags: TAGS[3], group: 'month' }), 10, 300);
    await time(`year report 2025, tag "${TAGS[0]}" (most used)`, 'money.getReport', () => ({ bid, from: '2025-01-01', to: '2025-12-31', tags: TAGS[0], group: 'month' }), 10);
    await time('five years per month', 'money.getReport', () => ({ bid, from: '2021-01-01', to: '2025-12-31', group: 'month' }), RUNS);
    await time('one month (2025-12) per day', 'money.getReport', () => ({ bid, from: '2025-12-01', to: '2025-12-31', group: 'day' }), RUNS, 300);
    await time('searchTags "a"', 'money.searchTags', () => ({ bid, q: 'a' }), RUNS);
    await time('getTagsPopular', 'money.getTagsPopular', () => ({ bid }), RUNS);
    await time(`getTagsByTagsRelay "${TAGS[0]}"`, 'money.getTagsByTagsRelay', () => ({ bid, tags: TAGS[0] }), 10);
    await time('setTransaction (insert, 2 tags) on the full box', 'money.setTransaction', (i) => ({ bid, type: i % 2, val: '12.34', tags: 'food,cafe', time_set: '2025-06-15', description: `bench ${i}` }), RUNS);
    const lines = Array.from({ length: 10_000 }, (_, i) => `2025-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')},${i % 3 ? 'expense' : 'income'},${(i % 9000) + 1}.${String(i % 100).padStart(2, '0')},${TAGS[i % 7]}`);
    const t0 = performance.now();
    const imp = await call('money.importCsv', { bid, csv: lines.join('\n') });
    const importMs = performance.now() - t0;
    const final = await check(ds, bid);
    return { db, fillS, rows, importMs, imported: imp.imported as number, final };
  } finally {
    await app.close();
  }
}

type Measured = Awaited<ReturnType<typeof measure>>;
const out: string[] = [];
function table(m: Measured) {
  out.push(`### ${m.db} (fill ${m.fillS.toFixed(0)} s)`, '', '| call | rows | first call ms | p50 ms | p95 ms | goal |', '| --- | ---: | ---: | ---: | ---: | --- |');
  for (const x of m.rows) out.push(`| ${x.label} | ${x.count} | ${x.cold.toFixed(0)} | ${x.p50.toFixed(1)} | ${x.p95.toFixed(1)} | ${x.goal ? `< ${x.goal} ms ${x.p95 < x.goal ? 'met' : '**missed**'}` : ''} |`);
  out.push('', `CSV import of 10,000 rows (one database transaction, the box locked): ${m.importMs.toFixed(0)} ms (${m.imported} rows). After the bench's writes the derived rows still equal the raw rows: ${m.final.count.toLocaleString('en')} transactions.`, '');
}

async function main() {
  const load0 = loadavg();
  const results = process.env.MONEY_BENCH_ONLY === 'mariadb' ? [] : [await measure('SQLite', {})];
  const maria = process.env.MONEY_BENCH_ONLY === 'sqlite' ? { skipped: 'MONEY_BENCH_ONLY=sqlite' } : await onScratchMariaDb((url) => measure('MariaDB', { DATABASE_URL: url }));
  out.push(
    '## Money: a box with 1,000,000 transactions (`bench/money.ts`)',
    '',
    `${machine()}, load average ${load0.map((x) => x.toFixed(1)).join(' ')} at the start and ${loadavg().map((x) => x.toFixed(1)).join(' ')} at the end. ` +
    `${N.toLocaleString('en')} transactions in one box over 2021-2025 (about 550 a day, 30% income, 0-3 tags from 40 with a skew), ` +
    `${RUNS} calls each after 2 warm-up calls (fewer where noted by the goal column's absence), over HTTP (RPC), one at a time. ` +
    'Goals (issue 21): a page p95 < 50 ms, the year report p95 < 300 ms. Pages find their start in the day sums (one row per day) instead of an OFFSET over the box; ' +
    'reports without a tag read the day and tag-day sums; with tags they read the relay rows of the matching transactions (they carry day, type and amount; the index covers them), ' +
    'one tag its day sums for the columns (docs/money.md "Performance"). The text filter is a LIKE scan over the box (no goal: the screens do not offer it).',
    '',
  );
  for (const m of results) table(m);
  if ('skipped' in maria) out.push(`MariaDB: skipped (${maria.skipped}).`);
  else table(maria.value);
  writeSection('money', out.join('\n'));
}

main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
