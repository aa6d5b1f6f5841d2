/**
 * Compilations (issue 19): `GET /api/compilation/get_list` with 100,000 compilations of 50 items each
 * (5,000,000 item rows, 200,000 books), on SQLite and on MariaDB (scratch database on 127.0.0.1:3306
 * when it answers): the /compilation list as the screen asks for it (20 newest with the count) on the
 * first, middle and last page, a title search, and one compilation with its 50 items and relays (the
 * edit form's call). Goal: p95 under 50 ms. Rows are written straight into the tables (multi-row
 * INSERTs, the items by INSERT ... SELECT over a numbers table).
 * Run: `npm run bench -- compilations` (COMPILATIONS_BENCH_N to change the size).
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import { cpus, loadavg } from 'node:os';
import type { DataSource } from 'typeorm';
import { machine, onScratchMariaDb, percentile, startBenchApp, writeSection } from './lib.js';

const N = Number(process.env.COMPILATIONS_BENCH_N ?? 100_000);
const ITEMS = 50;
const BOOKS = 200_000;
const RUNS = Number(process.env.COMPILATIONS_BENCH_RUNS ?? 50);
const CHUNK = 1000;
const WORDS = ['Лучшие', 'Новые', 'Книги', 'Романы', 'Детективы', 'Фантастика', 'Зимние', 'Летние', 'Морские', 'Тихие', 'Истории', 'Сказки'];
const t0Ms = Date.UTC(2026, 0, 1);
const sqlTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

async function fill(ds: DataSource, log: (s: string) => void) {
  const t0 = Date.now();
  await ds.query('CREATE TABLE bench_nums (n INTEGER NOT NULL PRIMARY KEY)');
  for (let i = 0; i < Math.max(N, BOOKS); i += CHUNK) {
    const ns = Array.from({ length: CHUNK }, (_, j) => i + j + 1);
    await ds.query(`INSERT INTO bench_nums (n) VALUES ${ns.map(() => '(?)').join(', ')}`, ns);
  }
  await ds.query("INSERT INTO books (Id_book, book_title, views) SELECT n, 'Книга', n % 1000 FROM bench_nums WHERE n <= ?", [BOOKS]);
  for (let i = 0; i < N; i += CHUNK) {
    const rows: unknown[] = [];
    const n = Math.min(CHUNK, N - i);
    for (let j = 0; j < n; j++) {
      const id = i + j + 1;
      const title = `${WORDS[id % 12]} ${WORDS[(id * 7) % 12].toLowerCase()} ${id}`;
      // Saved at scattered times (not in id order), so time_desc is not the id order.
      rows.push(id, title, 'Описание подборки', title, WORDS[id % 12], '<p>Текст над списком</p>', sqlTime(t0Ms + ((id * 7919) % N) * 60_000 + id), ITEMS);
    }
    await ds.query(
      `INSERT INTO compilations (Id_compilation, meta_title, meta_description, meta_h1, title_short, body_top, time_update, items_count) VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`, rows,
    );
  }
  log(`${N} compilations (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  // 50 distinct books per compilation: (c * 37 + i * 1009) mod BOOKS differs for every i of one c.
  const STEP = 10_000;
  for (let c = 0; c < N; c += STEP) {
    await ds.query(
      `INSERT INTO compilation_items (id_compilation, item_id, pos)
       SELECT c.n, ((c.n * 37 + i.n * 1009) % ${BOOKS}) + 1, i.n FROM bench_nums c JOIN bench_nums i ON i.n <= ${ITEMS} WHERE c.n > ? AND c.n <= ?`,
      [c, Math.min(N, c + STEP)],
    );
    log(`${Math.min(N, c + STEP) * ITEMS} items (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
  await ds.query('INSERT INTO compilation_relay (id_compilation, Id_cat) SELECT n, (n % 18) + 1 FROM bench_nums WHERE n <= ?', [N]);
  await ds.query('DROP TABLE bench_nums');
  return (Date.now() - t0) / 1000;
}

async function measure(db: string, env: Record<string, string>) {
  const app = await startBenchApp(env);
  try {
    const ds = app.app.get<DataSource>(getDataSourceToken());
    const fillS = await fill(ds, (s) => console.log(`[${db}] ${s}`));
    if (ds.options.type === 'mariadb') for (const t of ['compilations', 'compilation_items', 'books']) await ds.query(`ANALYZE TABLE ${t}`);
    const call = async (query: string) => {
      const res = await fetch(`${app.url}/api/compilation/get_list?${query}`, { headers: { User: app.hash } });
      const body = (await res.json()) as { status: string; result: any; message?: string };
      if (body.status !== 'ok') throw new Error(`${query}: ${body.message}`);
      return body.result;
    };
    const time = async (label: string, query: string, check: (r: any) => string) => {
      const ms: number[] = [];
      let last: any;
      let cold = 0;
      for (let i = 0; i < RUNS + 2; i++) {
        const t0 = performance.now();
        last = await call(query);
        if (i === 0) cold = performance.now() - t0;
        if (i >= 2) ms.push(performance.now() - t0);
      }
      ms.sort((a, b) => a - b);
      return { label, answer: check(last), cold, p50: percentile(ms, 0.5), p95: percentile(ms, 0.95), max: ms[ms.length - 1] };
    };
    const pages = Math.ceil(N / 20);
    const list = (r: any) => `${r.list.length} cards of ${r.count.toLocaleString('en')}`;
    const rows = [
      await time('list, first page (the /compilation screen: getCount, time_desc)', 'page=1&getCount=1&joinItems=0&sort=time_desc', list),
      await time(`list, middle page (${Math.floor(pages / 2)})`, `page=${Math.floor(pages / 2)}&getCount=1&joinItems=0&sort=time_desc`, list),
      await time(`list, last page (${pages})`, `page=${pages}&getCount=1&joinItems=0&sort=time_desc`, list),
      await time('list, q (a title word in 1/12 of the rows), first page', `page=1&getCount=1&q=${encodeURIComponent('Морские')}`, list),
      await time('one compilation with its 50 items and relays (the edit form)', `Id_compilation=${Math.floor(N / 2)}&joinItems=1&joinRelay=1`, (r) => `${r.items.length} items`),
      await time('list, first page with joinItems (1,000 items)', 'page=1&getCount=1&joinItems=1', (r) => `${r.list.length} cards, ${r.list.reduce((a: number, c: any) => a + c.items.length, 0)} items`),
    ];
    return { db, fillS, rows };
  } finally {
    await app.close();
  }
}

type Measured = Awaited<ReturnType<typeof measure>>;
const lines: string[] = [];
function table(r: Measured) {
  lines.push(`### ${r.db} (fill ${r.fillS.toFixed(0)} s)`, '', '| call | answer | first call ms | p50 ms | p95 ms | max ms |', '| --- | --- | ---: | ---: | ---: | ---: |');
  for (const x of r.rows) lines.push(`| ${x.label} | ${x.answer} | ${x.cold.toFixed(1)} | ${x.p50.toFixed(1)} | ${x.p95.toFixed(1)} | ${x.max.toFixed(1)} |`);
  lines.push('');
}

async function main() {
  const loadStart = loadavg().map((x) => x.toFixed(1)).join(' ');
  const results = process.env.COMPILATIONS_BENCH_ONLY === 'mariadb' ? [] : [await measure('SQLite', {})];
  const maria = process.env.COMPILATIONS_BENCH_ONLY === 'sqlite' ? { skipped: 'COMPILATIONS_BENCH_ONLY=sqlite' } : await onScratchMariaDb((url) => measure('MariaDB', { DATABASE_URL: url }));
  lines.push(
    '## Compilations: `compilation/get_list`',
    '',
    `${machine()}; load average ${loadStart} at the start, ${loadavg().map((x) => x.toFixed(1)).join(' ')} at the end. ${N.toLocaleString('en')} compilations of ${ITEMS} items ` +
    `(${(N * ITEMS).toLocaleString('en')} item rows, ${BOOKS.toLocaleString('en')} books), ${RUNS} calls each after 2 warm-up calls, REST over HTTP, one at a time. Goal: p95 < 50 ms. Run: \`npm run bench -- compilations\`.`,
    '',
  );
  if (Number(loadStart.split(' ')[0]) > cpus().length) {
    lines.push(`**Busy machine**: other work shared the ${cpus().length} cores during this run (load average ${loadStart} at the start), so the p95 and max columns carry other processes' pauses; re-run on a quiet machine for the record.`, '');
  }
  lines.push('The page\'s ids are read from the `(time_update, Id_compilation)` index and the 20 rows by id; a page past the middle walks the index from the other end, so the middle page is the slowest (half the index); the list count is kept 30 s per filter (docs/content.md "Compilations").', '');
  for (const r of results) table(r);
  if ('skipped' in maria) lines.push(`MariaDB: skipped (${maria.skipped}).`);
  else table(maria.value);
  writeSection('compilations', lines.join('\n'));
}

main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
