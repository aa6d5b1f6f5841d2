/**
 * The content import (docs/content.md "Import"): rows of one entity, validated one by one against the
 * fields of 001 §3, upserted by id (pages by bid and num) in one transaction per call; rows naming the
 * same id apply in order, the last one wins. Refused rows are
 * reported with their 1-based row number and the reason. By default the good rows are written and the
 * bad ones refused; with `all_or_none` any refused row means nothing is written. A database failure
 * rolls the whole call back, so a call is never half-written. Rich-text fields (IMPORT_HTML: joke
 * categories' cat_body, sonnik categories' body) are stored through cleanHtml like their editors.
 * Used by content.import (RPC) and by
 * `npm run content:import` (batches of IMPORT_MAX_ROWS rows, each its own call).
 */
import type { DataSource, EntityManager } from 'typeorm';
import { cleanHtml } from '../../core/content/sanitize.js';
import { fromZod } from '../../core/errors.js';
import { IMPORT_HTML, IMPORT_ROW, IMPORT_TABLE, type ImportEntity, type ImportResult } from '../../contracts/content.js';

type Row = Record<string, unknown>;

/** Validates each row; `offset` is added to the reported row numbers (1-based). */
export function validateRows(entity: ImportEntity, rows: unknown[], offset = 0): { good: { n: number; row: Row }[]; refused: ImportResult['refused'] } {
  const schema = IMPORT_ROW[entity];
  const good: { n: number; row: Row }[] = [];
  const refused: ImportResult['refused'] = [];
  rows.forEach((raw, i) => {
    const n = offset + i + 1;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) { refused.push({ row: n, message: 'row must be an object' }); return; }
    if ('__parse_error' in raw) { refused.push({ row: n, message: String((raw as Row).__parse_error) }); return; }
    const r = schema.safeParse(raw);
    if (!r.success) { refused.push({ row: n, message: fromZod(r.error).message }); return; }
    const row = Object.fromEntries(Object.entries(r.data as Row).filter(([, v]) => v !== undefined));
    // Rich-text fields are sanitised as their editors store them (joke cat_body, sonnik body).
    for (const f of IMPORT_HTML[entity] ?? []) if (typeof row[f] === 'string') row[f] = cleanHtml(row[f] as string);
    good.push({ n, row });
  });
  return { good, refused };
}

const keyOf = (keys: string[], row: Row) => keys.map((k) => String(row[k])).join('-');

/**
 * Upserts validated rows in the given transaction; answers how many were inserted and updated. Rows of
 * one call apply in order: rows naming the same id are folded into one write (a later row's fields over
 * an earlier one's), which leaves what writing them one after another would, so the last row for an id
 * wins. Each row is counted once: inserted when its id was neither in the table nor named by an earlier
 * row of the call, updated otherwise.
 */
async function upsert(m: EntityManager, entity: ImportEntity, rows: Row[]): Promise<{ inserted: number; updated: number }> {
  const { table, keys } = IMPORT_TABLE[entity];
  const folded = new Map<string, Row>();
  for (const r of rows) { const k = keyOf(keys, r); folded.set(k, { ...folded.get(k), ...r }); }
  const all = [...folded.values()];
  const existing = new Set<string>();
  const CHUNK = 400;
  for (let i = 0; i < all.length; i += CHUNK) {
    const part = all.slice(i, i + CHUNK);
    const qb = m.createQueryBuilder().select(keys.map((k) => `t.${k}`)).from(table, 't')
      .where(`t.${keys[0]} IN (:...ids)`, { ids: [...new Set(part.map((r) => r[keys[0]]))] });
    const wanted = new Set(part.map((r) => keyOf(keys, r)));
    for (const e of await qb.getRawMany<Row>()) {
      const k = keyOf(keys, Object.fromEntries(keys.map((c) => [c, e[c] ?? e[`t_${c}`]])));
      if (wanted.has(k)) existing.add(k);
    }
  }
  let inserted = 0;
  let updated = 0;
  const seen = new Set(existing);
  for (const r of rows) {
    const k = keyOf(keys, r);
    if (seen.has(k)) updated++;
    else { inserted++; seen.add(k); }
  }
  const fresh: Row[] = [];
  for (const r of all) {
    if (existing.has(keyOf(keys, r))) {
      const set = Object.fromEntries(Object.entries(r).filter(([c]) => !keys.includes(c)));
      if (Object.keys(set).length) {
        if (entity === 'books') set.time_update = new Date();
        await m.createQueryBuilder().update(table).set(set).where(Object.fromEntries(keys.map((c) => [c, r[c]]))).execute();
      }
    } else fresh.push(entity === 'books' ? { ...r, time_update: new Date() } : r);
  }
  // One multi-row INSERT per group of rows with the same columns.
  const groups = new Map<string, Row[]>();
  for (const r of fresh) {
    const sig = Object.keys(r).sort().join(',');
    groups.set(sig, [...(groups.get(sig) ?? []), r]);
  }
  for (const g of groups.values()) {
    for (let i = 0; i < g.length; i += CHUNK) await m.createQueryBuilder().insert().into(table).values(g.slice(i, i + CHUNK)).execute();
  }
  if (entity === 'books') {
    // Every category a row of the call named is a placement (book_cat_relay holds every placement).
    const placed = [...new Map(rows.filter((r) => typeof r.book_cat === 'number' && r.book_cat > 0)
      .map((r) => [`${r.book_cat}-${r.Id_book}`, { Id_cat: r.book_cat, Id_book: r.Id_book, pos: 0 }])).entries()];
    for (let i = 0; i < placed.length; i += CHUNK) {
      const part = placed.slice(i, i + CHUNK);
      const have = new Set((await m.createQueryBuilder().select(['r.Id_cat AS c', 'r.Id_book AS b']).from('book_cat_relay', 'r')
        .where('r.Id_book IN (:...ids)', { ids: [...new Set(part.map(([, v]) => v.Id_book))] }).getRawMany<{ c: number; b: number }>()).map((x) => `${x.c}-${x.b}`));
      const add = part.filter(([k]) => !have.has(k)).map(([, v]) => v);
      if (add.length) await m.createQueryBuilder().insert().into('book_cat_relay').values(add).execute();
    }
  }
  return { inserted, updated };
}

/** One import call: validate, then (unless all_or_none found a refused row) upsert in one transaction. */
export async function importRows(ds: DataSource, entity: ImportEntity, rows: unknown[], allOrNone = false, offset = 0): Promise<ImportResult> {
  const { good, refused } = validateRows(entity, rows, offset);
  if ((allOrNone && refused.length) || !good.length) return { inserted: 0, updated: 0, refused };
  const done = await ds.transaction((m) => upsert(m, entity, good.map((g) => g.row)));
  return { ...done, refused };
}

/** Parses a JSON-lines or CSV file's text into row objects (CSV: a header line, RFC 4180 quoting). */
export function parseImportFile(name: string, textBody: string): unknown[] {
  if (/\.jsonl?$|\.ndjson$/i.test(name)) {
    return textBody.split(/\r?\n/).filter((l) => l.trim()).map((l, i) => {
      try { return JSON.parse(l) as unknown; } catch { return { __parse_error: `line ${i + 1}: not JSON` }; }
    });
  }
  const records = parseCsv(textBody);
  const header = records.shift() ?? [];
  return records.filter((r) => r.some((c) => c !== '')).map((r) => Object.fromEntries(header.map((h, i) => [h.trim(), r[i] === '' ? undefined : r[i]])));
}

/** RFC 4180 CSV: quoted fields with "" escapes and line breaks, comma separated. */
export function parseCsv(s: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let q = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) {
      if (c === '"' && s[i + 1] === '"') { cell += '"'; i++; }
      else if (c === '"') q = false;
      else cell += c;
    } else if (c === '"') q = true;
    else if (c === ',') { row.push(cell); cell = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && s[i + 1] === '\n') i++;
      row.push(cell); out.push(row); row = []; cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length) { row.push(cell); out.push(row); }
  return out;
}
