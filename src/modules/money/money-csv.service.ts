import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import Papa from 'papaparse';
import type { DataSource } from 'typeorm';
import type { z } from 'zod';
import {
  csvCell, csvType, csvUncell, formatKopecks, MONEY_CSV_COLUMNS, MONEY_IMPORT_MAX_ROWS, MONEY_MSG, MONEY_TYPE_LABELS, MoneyCsvRow, MoneyImportCsv,
  type MoneyImportResult,
} from '../../contracts/money.js';
import { Role } from '../../contracts/roles.js';
import type { Actor } from '../../core/auth/actor.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { fromZod, invalid } from '../../core/errors.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { MoneyAccess } from './money-access.js';
import { whereOf, type TxFilter } from './money-filter.js';
import { dbTime, insertSteps, kop, type NewTx, type Row } from './money-store.js';
import { applyRules, MoneyService } from './money.service.js';

/** Rows read per query while exporting. */
const EXPORT_CHUNK = 2000;
/** Refused rows named in one answer at most (the count says how many in all). */
const REFUSED_SHOWN = 100;

type Column = (typeof MONEY_CSV_COLUMNS)[number];
/** Header names a file may use for each column (English, Russian, the spec's field names). */
const HEADER_NAMES: Record<string, Column> = {
  date: 'date', 'дата': 'date', time_set: 'date',
  type: 'type', 'тип': 'type',
  value: 'value', val: 'value', amount: 'value', 'сумма': 'value',
  tags: 'tags', 'теги': 'tags',
  description: 'description', 'описание': 'description',
};

/** A CSV file's records as {line (1-based record number, the header included), cells by column}. */
export function readCsv(text: string): { records: Array<{ line: number; cells: Partial<Record<Column, string>> }>; problems: Array<{ line: number; message: string }> } {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), { skipEmptyLines: 'greedy' });
  const problems = parsed.errors.map((e) => ({ line: (e.row ?? 0) + 1, message: `CSV: ${e.message}` }));
  const data = parsed.data;
  let cols: Array<Column | null> = [...MONEY_CSV_COLUMNS];
  let first = 0;
  const head = (data[0] ?? []).map((c) => c.trim().toLowerCase());
  if (head.some((c) => HEADER_NAMES[c] === 'date')) {
    cols = head.map((c) => HEADER_NAMES[c] ?? null);
    first = 1;
    const missing = (['date', 'type', 'value'] as Column[]).filter((c) => !cols.includes(c));
    if (missing.length) problems.push({ line: 1, message: `the header has no ${missing.join(', ')} column` });
  }
  const records = data.slice(first).map((row, i) => {
    const cells: Partial<Record<Column, string>> = {};
    row.forEach((v, j) => {
      const c = cols[j];
      if (c) cells[c] = csvUncell(v);
    });
    return { line: first + i + 1, cells };
  });
  return { records, problems };
}

/**
 * CSV of a box's transactions (issue 21 "CSV"; docs/money.md "CSV"): export with the list's filter
 * (GET /api/money/export, oldest first, streamed in pages by key, so importing the file adds the
 * transactions in the same order), import through money.importCsv, checked row by
 * row with the same rules as money.setTransaction and written in ONE database transaction: a file
 * with any refused row imports nothing (422 naming each refused line). Cells that begin like a
 * formula (= + - @, tab, CR) are written with a leading apostrophe and read back without it.
 */
@Injectable()
export class MoneyCsvService {
  constructor(@InjectDataSource() private readonly db: DataSource, private readonly access: MoneyAccess, private readonly money: MoneyService) {}

  /** The file name and the CSV text in pieces (a header first); the box is checked before anything is sent. */
  async exportCsv(actor: Actor, f: TxFilter): Promise<{ name: string; chunks: AsyncGenerator<string> }> {
    await this.access.box(actor, f.bid);
    const db = this.db;
    const w = whereOf(f);
    async function* chunks(): AsyncGenerator<string> {
      yield '\uFEFF' + Papa.unparse([[...MONEY_CSV_COLUMNS]]) + '\r\n';
      let after: { day: string; trid: number } | null = null;
      for (;;) {
        const keyset = after ? ' AND (t.time_set > ? OR (t.time_set = ? AND t.trid > ?))' : '';
        const rows: Row[] = await db.query(
          `SELECT t.trid, t.type, t.val, t.tags, t.time_set, t.description FROM money_transactions t WHERE ${w.sql}${keyset} ORDER BY t.time_set, t.trid LIMIT ${EXPORT_CHUNK}`,
          after ? [...w.params, after.day, after.day, after.trid] : w.params,
        );
        if (!rows.length) return;
        yield Papa.unparse(rows.map((r) => [
          String(r.time_set), MONEY_TYPE_LABELS[Number(r.type) === 1 ? 1 : 0].toLowerCase(), formatKopecks(String(r.val)), csvCell(String(r.tags ?? '')), csvCell(String(r.description ?? '')),
        ])) + '\r\n';
        if (rows.length < EXPORT_CHUNK) return;
        const last = rows[rows.length - 1];
        after = { day: String(last.time_set), trid: Number(last.trid) };
      }
    }
    return { name: `money-box-${f.bid}-${new Date().toISOString().slice(0, 10)}.csv`, chunks: chunks() };
  }

  @Rpc('money.importCsv', {
    role: Role.user, write: true, input: MoneyImportCsv,
    summary: `{bid, csv, dry_run?}: a CSV of ${MONEY_CSV_COLUMNS.join(', ')} (a header row names them in any order; without one, in this order; type expense/income or 0/1; value like 12.50), at most ${MONEY_IMPORT_MAX_ROWS} rows, checked row by row; any refused row: 422 naming each refused line and nothing imported; else every row in one database transaction (the rules add their tags): {rows, imported, dry_run, balance}`,
  })
  async importCsv(a: z.output<typeof MoneyImportCsv>, ctx: RpcContext): Promise<MoneyImportResult> {
    const b = await this.access.box(ctx.actor, a.bid);
    auditTarget('money box', String(b.row.title), a.bid);
    const { records, problems } = readCsv(a.csv);
    if (records.length > MONEY_IMPORT_MAX_ROWS) throw invalid(`At most ${MONEY_IMPORT_MAX_ROWS} rows per import (this file has ${records.length})`, { csv: `at most ${MONEY_IMPORT_MAX_ROWS} rows` });
    if (!records.length && !problems.length) throw invalid('The file has no rows', { csv: 'no rows' });
    const refused = [...problems];
    const rules = await this.money.rulesOf(a.bid);
    const txs: NewTx[] = [];
    for (const r of records) {
      const t = csvType(r.cells.type ?? '');
      const parsed = MoneyCsvRow.safeParse({
        date: (r.cells.date ?? '').trim(),
        type: t === null ? (r.cells.type ?? '') : t,
        value: r.cells.value ?? '',
        tags: r.cells.tags ?? '',
        description: r.cells.description ?? '',
      });
      if (!parsed.success) {
        refused.push({ line: r.line, message: fromZod(parsed.error).message });
        continue;
      }
      const v = parsed.data;
      const description = v.description ?? '';
      txs.push({ uid: ctx.actor.uid, type: v.type, val: v.value, tags: applyRules(rules, description, v.tags ?? []), time_set: v.date, description });
    }
    if (refused.length) {
      refused.sort((x, y) => x.line - y.line);
      const fields: Record<string, string> = {};
      for (const r of refused.slice(0, REFUSED_SHOWN)) fields[`line ${r.line}`] ??= r.message;
      const shown = refused.slice(0, 3).map((r) => `line ${r.line}: ${r.message}`).join('; ');
      throw invalid(`${MONEY_MSG.importRefused}. ${refused.length} of ${records.length} rows refused (${shown}${refused.length > 3 ? '; …' : ''})`, fields);
    }
    if (a.dry_run) return { rows: records.length, imported: 0, dry_run: 1, balance: formatKopecks(kop(b.row.balance)) };
    const dialect = this.money.tx.dialect;
    const r = await this.money.tx.run(() => insertSteps(dialect, a.bid, txs, dbTime()));
    return { rows: records.length, imported: r.trids.length, dry_run: 0, balance: formatKopecks(r.balance) };
  }
}
