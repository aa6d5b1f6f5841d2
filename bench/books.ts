/**
 * Books (issue 13): /book/list's call (book.getList over HTTP, one client, one call at a time) with
 * 1,000,000 books, on SQLite and on MariaDB (scratch database on 127.0.0.1:3306 when it answers): the
 * first and the last page (20 rows), the middle page, a status filter, and full-text title searches
 * (a rare word, a common word, two words; first and last page of each). Then the block screens'
 * 'Get items information' for a mail body with 50 links (items with similar offers). Goals: p95 under
 * 100 ms for the first and last pages, title search included; 50 links under 1 s.
 * Books are written with multi-row INSERTs straight into the table (the FTS5 triggers run on SQLite).
 * Run: `npm run bench -- books` (BOOKS_BENCH_N to change the size).
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import { loadavg } from 'node:os';
import type { DataSource } from 'typeorm';
import { machine, onScratchMariaDb, percentile, startBenchApp, writeSection } from './lib.js';
import { prng } from '../src/core/prng.js';

const N = Number(process.env.BOOKS_BENCH_N ?? 1_000_000);
const RUNS = Number(process.env.BOOKS_BENCH_RUNS ?? 20);
const CHUNK = 1000;

const SYL = ['ка', 'ло', 'ми', 'ра', 'сто', 'вен', 'гор', 'лес', 'мор', 'дар', 'ток', 'зим', 'нов', 'тар', 'бел', 'ель', 'сон', 'вол', 'дом', 'лун'];
/** A vocabulary of 4,000 words, drawn with a Zipf-like skew: a few words are common, most are rare. */
const rnd0 = prng(7);
const WORDS = Array.from({ length: 4000 }, () => SYL[Math.floor(rnd0() * 20)] + SYL[Math.floor(rnd0() * 20)] + SYL[Math.floor(rnd0() * 20)]);
const word = (r: () => number) => WORDS[Math.floor(WORDS.length * r() ** 2)];

async function fill(ds: DataSource, log: (s: string) => void) {
  const r = prng(42);
  const t0 = Date.now();
  for (let i = 0; i < N; i += CHUNK) {
    const rows: unknown[] = [];
    const n = Math.min(CHUNK, N - i);
    for (let j = 0; j < n; j++) {
      const id = i + j + 1;
      const words = 2 + Math.floor(r() * 3);
      const title = Array.from({ length: words }, () => word(r)).join(' ');
      rows.push(id, title, 1 + Math.floor(r() * 200000), Math.floor(r() ** 4 * 100000), 1 + Math.floor(r() * 20), r() < 0.03 ? 2 : 0, 1 + Math.floor(r() * 40));
    }
    await ds.query(`INSERT INTO books (Id_book, book_title, book_owner, views, book_pages, public, book_cat) VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`, rows);
    if ((i / CHUNK) % 100 === 0) log(`${i + n} / ${N} books (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
  return (Date.now() - t0) / 1000;
}

async function measure(db: string, env: Record<string, string>) {
  const app = await startBenchApp(env);
  try {
    const ds = app.app.get<DataSource>(getDataSourceToken());
    const fillS = await fill(ds, (s) => console.log(`[${db}] ${s}`));
    if (ds.options.type === 'mariadb') await ds.query('ANALYZE TABLE books');
    const call = async (method: string, args: unknown) => {
      const res = await fetch(`${app.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', User: app.hash }, body: JSON.stringify({ methods: [method], args: [args], host: 0 }) });
      const [env1] = (await res.json()) as [{ status: string; result: any; message?: string }];
      if (env1.status !== 'ok') throw new Error(`${method}: ${env1.message}`);
      return env1.result;
    };
    const time = async (label: string, method: string, args: unknown, runs = RUNS) => {
      const ms: number[] = [];
      let last: any;
      let cold = 0;
      for (let i = 0; i < runs + 2; i++) {
        const t0 = performance.now();
        last = await call(method, args);
        if (i === 0) cold = performance.now() - t0;
        if (i >= 2) ms.push(performance.now() - t0);
      }
      ms.sort((a, b) => a - b);
      const items: { found: boolean; offers: unknown[]; offers_skipped?: boolean }[] = Array.isArray(last?.items) ? last.items : [];
      const skipped = items.filter((x) => x.offers_skipped).length;
      const bare = items.filter((x) => x.found && !x.offers.length).length;
      const note = items.length ? ` (at the last call: offers skipped for ${skipped}, ${bare} found books without offers)` : '';
      return { label: `${label}${note}`, cold, p50: percentile(ms, 0.5), p95: percentile(ms, 0.95), count: last?.count ?? last?.items?.length ?? '' };
    };
    const count = (await call('book.getList', { limit: 20 })).count as number;
    const lastPage = Math.ceil(count / 20);
    // Words of three frequencies, read from the data.
    const rare = WORDS[3500];
    const common = WORDS[0];
    const medium = WORDS[60];
    const rows: Awaited<ReturnType<typeof time>>[] = [];
    // The first call of each row counts (cold: no cached count); the list counts are then reused.
    rows.push(await time('first page', 'book.getList', { p_: 1 }));
    rows.push(await time(`last page (p_ ${lastPage})`, 'book.getList', { p_: lastPage }));
    rows.push(await time('middle page', 'book.getList', { p_: Math.floor(lastPage / 2) }, 10));
    rows.push(await time('Id_book <= 906702 (default filter), first page', 'book.getList', { p_: 1, Id_book: 906702 }));
    rows.push(await time('status Block (public=2), first page', 'book.getList', { p_: 1, public: 2 }));
    for (const [name, q] of [['rare word', rare], ['medium word', medium], ['most common word', common], ['two words', `${common} ${WORDS[1]}`]] as const) {
      const t0 = performance.now();
      const first = await call('book.getList', { p_: 1, book_title: q });
      console.log(`[${db}] ${q}: ${first.count} matches, cold ${(performance.now() - t0).toFixed(0)} ms`);
      const lp = Math.max(1, Math.ceil(first.count / 20));
      rows.push(await time(`title "${q}" (${name}), first page`, 'book.getList', { p_: 1, book_title: q }));
      rows.push(await time(`title "${q}" (${name}), last page (p_ ${lp})`, 'book.getList', { p_: lp, book_title: q }));
    }
    const r = prng(9);
    const mail = Array.from({ length: 50 }, () => `https://books.example/read/${1 + Math.floor(r() * N)}`).join('\n');
    rows.push(await time('Get items information: 50 links with similar offers', 'item.getItemsByItem', { variant: 'block', mail_body: mail }, 10));
    return { db, fillS, rows };
  } finally {
    await app.close();
  }
}

type Measured = Awaited<ReturnType<typeof measure>>;
const lines: string[] = [];
function table(r: Measured) {
  lines.push(`### ${r.db} (fill ${r.fillS.toFixed(0)} s)`, '', '| call | rows matched | first call ms | p50 ms | p95 ms |', '| --- | ---: | ---: | ---: | ---: |');
  for (const x of r.rows) lines.push(`| ${x.label} | ${typeof x.count === 'number' ? x.count.toLocaleString('en') : x.count} | ${x.cold.toFixed(0)} | ${x.p50.toFixed(1)} | ${x.p95.toFixed(1)} |`);
  lines.push('');
}

async function main() {
  const results = process.env.BOOKS_BENCH_ONLY === 'mariadb' ? [] : [await measure('SQLite', {})];
  const maria = await onScratchMariaDb((url) => measure('MariaDB', { DATABASE_URL: url }));
  lines.push(
    '## Books',
    '',
    `${machine()}, load ${loadavg().map((x) => x.toFixed(1)).join(' ')} at the end. ${N.toLocaleString('en')} books (titles of 2-4 words from a 4,000-word vocabulary drawn with a skew), ` +
    `${RUNS} calls each after 2 warm-up calls (10 for the middle page and the 50 links), over HTTP (RPC), one at a time. "First call" is the cold call (the list count not cached yet, docs/content.md "Paging"). Goals: p95 < 100 ms for the first and last page, title search included; 50 links < 1 s.`,
    '',
  );
  for (const r of results) {
    table(r);
    lines.push('');
  }
  if ('skipped' in maria) lines.push(`MariaDB: skipped (${maria.skipped}).`);
  else {
    const r = maria.value;
    table(r);
  }
  writeSection('books', lines.join('\n'));
}

main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
