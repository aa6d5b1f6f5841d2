/**
 * Money CSV (issue 21 "CSV"; docs/money.md "CSV"), SQLite or MariaDB: the export of a box (the filter
 * applied, formula-looking cells escaped with an apostrophe, streamed past one page of rows) read back
 * (oldest first) by the import into another box gives the same transactions; the import checks row by row, and a file
 * with one refused row imports nothing (422 naming the line); a header in any order, Russian words,
 * a dry run, and the box's rules applied to imported rows.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import Papa from 'papaparse';
import type { DataSource } from 'typeorm';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkDerived } from '../helpers/money.js';
import { pass } from '../helpers/passes.js';

let t: TestApp;
let alice: string;
const db = () => t.app.get<DataSource>(getDataSourceToken());

async function call(method: string, args: unknown) {
  const r = await t.rpc<any>(alice, method, args);
  return { code: r.env.status === 'ok' ? 200 : (r.env.code ?? 0), env: r.env as any };
}
const ok = <T = any>(method: string, args: unknown) => t.ok<T>(alice, method, args);
const box = async (title: string) => (await ok('money.boxUpdate', { title, description: title })).bid as number;
async function exportCsv(query: string) {
  const res = await fetch(`${t.url}/api/money/export?${query}`, { headers: { User: alice } });
  // the BOM kept (fetch's text() drops it)
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), text };
}
const all = async (bid: number) => (await ok('money.getTransactions', { bid, limit: 200 })).list.map((x: any) => ({ type: x.type, val: x.val, tags: x.tags, time_set: x.time_set, description: x.description }));

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  alice = (await t.session(100, 'alice')).hash;
}, 60_000);
afterAll(async () => { await t?.close(); });

describe(`money CSV (${pass})`, () => {
  test('round trip: export (formula-looking cells escaped) then import into another box gives the same transactions', async () => {
    const src = await box('Source');
    const rows = [
      { type: 0, val: '1200.50', tags: 'rent', time_set: '2026-03-01', description: '=HYPERLINK("http://evil.example","click")' },
      { type: 1, val: '0.10', tags: '-minus,@at,+plus,=eq', time_set: '2026-03-02', description: '+1 bonus' },
      { type: 0, val: '7.00', tags: '', time_set: '2026-03-02', description: '-5 discount, "quoted"\nsecond line' },
      { type: 0, val: '3.30', tags: 'кафе,ёлка', time_set: '2026-03-03', description: '@SUM(A1) Кофе' },
      { type: 1, val: '99999.99', tags: 'salary', time_set: '2026-03-04', description: '' },
    ];
    for (const r of rows) await ok('money.setTransaction', { bid: src, ...r });
    const ex = await exportCsv(`bid=${src}`);
    expect(ex.status).toBe(200);
    expect(ex.type).toMatch(/^text\/csv; charset=utf-8/);
    expect(ex.disposition).toMatch(new RegExp(`^attachment; filename="money-box-${src}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
    expect(ex.text.charCodeAt(0)).toBe(0xfeff);
    const cells = Papa.parse<string[]>(ex.text.slice(1), { skipEmptyLines: true }).data;
    expect(cells[0]).toEqual(['date', 'type', 'value', 'tags', 'description']);
    // no cell a spreadsheet would run: every one beginning with = + - @ carries an apostrophe
    for (const c of cells.flat()) expect(c).not.toMatch(/^[=+\-@]/);
    expect(cells.flat()).toEqual(expect.arrayContaining(["'=HYPERLINK(\"http://evil.example\",\"click\")", "'+1 bonus", "'-5 discount, \"quoted\"\nsecond line", "'@SUM(A1) Кофе", "'-minus,@at,+plus,=eq"]));
    expect(cells[1]).toEqual(['2026-03-01', 'expense', '1200.50', 'rent', "'=HYPERLINK(\"http://evil.example\",\"click\")"]);
    expect(cells[5]).toEqual(['2026-03-04', 'income', '99999.99', 'salary', '']);

    const dst = await box('Copy');
    const imp = await ok('money.importCsv', { bid: dst, csv: ex.text });
    expect(imp).toMatchObject({ rows: 5, imported: 5, dry_run: 0, balance: (await ok('money.getBox', { bid: src })).balance });
    expect(await all(dst)).toEqual(await all(src));
    expect((await ok('money.getTransactions', { bid: dst })).list[0]).toMatchObject({ val: '99999.99' });
    await checkDerived(db(), dst);

    // the filter applies to the export
    const inc = await exportCsv(`bid=${src}&type=1`);
    expect(Papa.parse<string[]>(inc.text.slice(1), { skipEmptyLines: true }).data.slice(1).map((r) => r[2])).toEqual(['0.10', '99999.99']);
    const tagged = await exportCsv(`bid=${src}&tags=${encodeURIComponent('rent,кафе')}&from=2026-03-01&to=2026-03-03`);
    expect(Papa.parse<string[]>(tagged.text.slice(1), { skipEmptyLines: true }).data.slice(1).map((r) => r[0])).toEqual(['2026-03-01', '2026-03-03']);
    expect((await exportCsv(`bid=${src}&from=2026-13-01`)).status).toBe(422);
    expect((await exportCsv('bid=x')).status).toBe(422);
  });

  test('a file with a refused row imports nothing: 422 naming each refused line', async () => {
    const bid = await box('Strict');
    await ok('money.setTransaction', { bid, type: 1, val: '10.00', time_set: '2026-01-01' });
    const before = await db().query('SELECT * FROM money_transactions WHERE bid = ?', [bid]);
    const csv = [
      'date,type,value,tags,description',
      '2026-01-02,expense,1.00,food,ok',
      '2026-01-03,expense,1.234,food,three decimals',
      '2026-01-04,,5.00,,no type',
      '2026-02-30,income,5.00,,no such day',
      '2026-01-05,gift,5.00,,bad type',
      '2026-01-06,income,5.00,,ok too',
    ].join('\n');
    const r = await call('money.importCsv', { bid, csv });
    expect(r.code).toBe(422);
    expect(r.env.message).toMatch(/^Nothing was imported: fix the refused rows and import the file again\. 4 of 6 rows refused \(line 3: value: value has more than 2 decimal places; line 4: type: Не указан тип записи; line 5: date: date must be a day written yyyy-MM-dd; …\)$/);
    expect(r.env.fields).toEqual({
      'line 3': 'value: value has more than 2 decimal places',
      'line 4': 'type: Не указан тип записи',
      'line 5': 'date: date must be a day written yyyy-MM-dd',
      'line 6': 'type: type must be 0 (expense) or 1 (income)',
    });
    expect(await db().query('SELECT * FROM money_transactions WHERE bid = ?', [bid])).toEqual(before);
    expect((await ok('money.getTransactions', { bid })).balance).toBe('10.00');
    await checkDerived(db(), bid);
    // a header without the value column
    const h = await call('money.importCsv', { bid, csv: 'date,type,tags\n2026-01-01,income,x' });
    expect(h.code).toBe(422);
    expect(h.env.fields['line 1']).toBe('the header has no value column');
    // a broken quote
    expect((await call('money.importCsv', { bid, csv: '2026-01-01,income,"5.00\n' })).code).toBe(422);
    expect((await call('money.importCsv', { bid, csv: '' })).code).toBe(422);
  });

  test('a header in any order and Russian words; a dry run writes nothing; the rules tag imported rows; more than one export page', async () => {
    const bid = await box('Import');
    await ok('money.setRules', { bid, rules: [{ contains: 'такси', tags: 'taxi' }] });
    const csv = '\uFEFFОписание;Сумма;Тип;Дата;Теги\n'.replace(/;/g, ',') + 'Яндекс Такси,"350,50",расход,2026-07-01,город\nЗарплата,100000,доход,2026-07-02,\n';
    const dry = await ok('money.importCsv', { bid, csv, dry_run: 1 });
    expect(dry).toMatchObject({ rows: 2, imported: 0, dry_run: 1, balance: '0.00' });
    expect((await ok('money.getTransactions', { bid })).count).toBe(0);
    const r = await ok('money.importCsv', { bid, csv });
    expect(r).toMatchObject({ rows: 2, imported: 2, balance: '99649.50' });
    expect(await all(bid)).toEqual([
      { type: 1, val: '100000.00', tags: '', time_set: '2026-07-02', description: 'Зарплата' },
      { type: 0, val: '350.50', tags: 'город,taxi', time_set: '2026-07-01', description: 'Яндекс Такси' },
    ]);

    // 4,500 rows in one import (one database transaction), exported back in pages of 2,000
    const big = await box('Big');
    const lines = Array.from({ length: 4500 }, (_, i) => `2026-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')},${i % 2 ? 'income' : 'expense'},${(i + 1) / 100},t${i % 7}`);
    expect(await ok('money.importCsv', { bid: big, csv: lines.join('\n') })).toMatchObject({ imported: 4500 });
    const ex = await exportCsv(`bid=${big}`);
    const back = Papa.parse<string[]>(ex.text.slice(1), { skipEmptyLines: true }).data.slice(1);
    expect(back).toHaveLength(4500);
    const keys = back.map((r) => r[0]);
    expect(keys).toEqual([...keys].sort());
    const again = await box('Big again');
    await ok('money.importCsv', { bid: again, csv: ex.text });
    expect((await ok('money.getBox', { bid: again })).balance).toBe((await ok('money.getBox', { bid: big })).balance);
    await checkDerived(db(), big);
    await checkDerived(db(), again);
  }, 90_000);
});
