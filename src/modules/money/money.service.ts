import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { z } from 'zod';
import {
  formatKopecks, MONEY_MSG, MONEY_PAGE, MONEY_TAG_LIMIT, MONEY_TAGS_MAX, MoneyBid, MoneyBoxUpdate, MoneyGetTransactions, MoneySearchTags,
  MoneySetRules, MoneySetTransaction, MoneyShareBox, MoneyTagsByRelay, MoneyTagsPopular, MoneyTrid, splitTags,
  type MoneyBox, type MoneyBoxDetail, type MoneyDaySum, type MoneyRuleView, type MoneyShare, type MoneyTag, type MoneyTransaction, type MoneyTransactions,
} from '../../contracts/money.js';
import { Role } from '../../contracts/roles.js';
import type { Actor } from '../../core/auth/actor.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { containsPattern, LIKE_CONTAINS, prefixPattern } from '../../core/database/like.js';
import { invalid, notFound } from '../../core/errors.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { MoneyAccess } from './money-access.js';
import { normFilter, TX_SELECT, txView, whereOf, type TxFilter } from './money-filter.js';
import {
  dbTime, deleteBoxSteps, deleteSteps, insertSteps, isoOf, kop, lockBox, MoneyTx, updateSteps, write, type NewTx, type Row,
} from './money-store.js';

/** Related tags are computed over this many of the latest transactions carrying the given tags. */
const RELAY_SAMPLE = 5000;

const boxView = (r: Row, actor: Actor, shared: boolean): MoneyBox => ({
  bid: Number(r.bid),
  title: String(r.title),
  description: String(r.description ?? ''),
  balance: formatKopecks(String(r.balance ?? 0)),
  count: Number(r.tx_count ?? 0),
  uid: Number(r.uid),
  owner: String(r.owner ?? ''),
  shared: shared ? 1 : 0,
  can_manage: Number(r.uid) === actor.uid || actor.role <= Role.admin ? 1 : 0,
  time_update: isoOf(r.time_update),
});

/** The rules' tags added to a new transaction whose description contains their text (ignoring case). */
export function applyRules(rules: Array<{ contains: string; tags: string }>, description: string, tags: string[]): string[] {
  const d = description.toLowerCase();
  let out = tags;
  for (const r of rules) if (d.includes(r.contains.toLowerCase())) out = splitTags([...out, r.tags]);
  return out.slice(0, MONEY_TAGS_MAX);
}

/**
 * Money (001 §2 "Money", §3, §5, §7 money.*; issue 21; docs/money.md): boxes, their transactions, tags
 * and tagging rules. Every signed-in user may keep boxes; each method checks the box on the server
 * (MoneyAccess: owner, shared with, or admin; others 404). Writes go through money-store.ts (one
 * database transaction with the balance and the derived sums). The report and CSV are
 * MoneyReportService and MoneyCsvService.
 */
@Injectable()
export class MoneyService {
  readonly tx: MoneyTx;

  constructor(@InjectDataSource() private readonly db: DataSource, private readonly access: MoneyAccess) {
    this.tx = new MoneyTx(db);
  }

  // -------------------------------------------------------------------------------------------
  // Boxes

  @Rpc('money.getBoxes', { role: Role.user, summary: 'The boxes you see (yours, shared with you; admins: all) by title: [{bid, title, description, balance ("0.30"), count, uid, owner, shared, can_manage, time_update}]' })
  async getBoxes(_a: unknown, ctx: RpcContext): Promise<MoneyBox[]> {
    const scope = this.access.scope(ctx.actor, 'b.bid');
    const rows: Row[] = await this.db.query(
      `SELECT b.*, u.name AS owner, (SELECT COUNT(*) FROM money_box_users s WHERE s.bid = b.bid AND s.uid = ?) AS is_shared
       FROM money_boxes b LEFT JOIN users u ON u.uid = b.uid WHERE ${scope.sql} ORDER BY b.title, b.bid`,
      [ctx.actor.uid, ...scope.params],
    );
    return rows.map((r) => boxView(r, ctx.actor, Number(r.is_shared) > 0 && Number(r.uid) !== ctx.actor.uid));
  }

  @Rpc('money.getBox', { role: Role.user, input: MoneyBid, summary: `{bid}: one box with its shares [{uid, login, name}] ('${MONEY_MSG.boxNotFound}' for a box you do not see)` })
  async getBox(a: z.output<typeof MoneyBid>, ctx: RpcContext): Promise<MoneyBoxDetail> {
    const b = await this.access.box(ctx.actor, a.bid);
    return { ...boxView(b.row, ctx.actor, b.shared), shares: await this.shares(a.bid) };
  }

  private async shares(bid: number): Promise<MoneyShare[]> {
    const rows: Row[] = await this.db.query('SELECT s.uid, u.login, u.name FROM money_box_users s LEFT JOIN users u ON u.uid = s.uid WHERE s.bid = ? ORDER BY u.login', [bid]);
    return rows.map((r) => ({ uid: Number(r.uid), login: String(r.login ?? ''), name: String(r.name ?? '') }));
  }

  @Rpc('money.boxUpdate', {
    role: Role.user, write: true, input: MoneyBoxUpdate,
    summary: `{bid?, title, description}: without bid a new box you own, with bid changes it (its owner or an admin); title and description required ('${MONEY_MSG.descriptionRequired}'): {bid, message}`,
  })
  async boxUpdate(a: MoneyBoxUpdate, ctx: RpcContext): Promise<{ bid: number; message: string }> {
    const now = dbTime();
    if (a.bid) {
      await this.access.box(ctx.actor, a.bid, 'manage');
      await this.db.query('UPDATE money_boxes SET title = ?, description = ?, time_update = ? WHERE bid = ?', [a.title, a.description, now, a.bid]);
      auditTarget('money box', a.title, a.bid);
      return { bid: a.bid, message: MONEY_MSG.saveOk };
    }
    const bid = await this.tx.run(function* () {
      return (yield* write('INSERT INTO money_boxes (uid, title, description, balance, tx_count, time_create, time_update) VALUES (?, ?, ?, 0, 0, ?, ?)', [ctx.actor.uid, a.title, a.description, now, now])).insertId;
    });
    auditTarget('money box', a.title, bid);
    return { bid, message: MONEY_MSG.insertOk };
  }

  @Rpc('money.boxDelete', {
    role: Role.user, write: true, input: MoneyBid,
    summary: '{bid}: removes the box with all its transactions, tags and rules, irreversibly (its owner or an admin): {bid, removed (transactions), message}',
  })
  async boxDelete(a: z.output<typeof MoneyBid>, ctx: RpcContext): Promise<{ bid: number; removed: number; message: string }> {
    const b = await this.access.box(ctx.actor, a.bid, 'manage');
    auditTarget('money box', String(b.row.title), a.bid);
    const dialect = this.tx.dialect;
    const removed = await this.tx.run(() => deleteBoxSteps(dialect, a.bid));
    return { bid: a.bid, removed, message: MONEY_MSG.deleteOk };
  }

  @Rpc('money.shareBox', {
    role: Role.admin, write: true, input: MoneyShareBox,
    summary: '{bid, uid, share: 1|0}: gives the user the box (they see and change its transactions and rules) or takes it back: {bid, shares}',
  })
  async shareBox(a: z.output<typeof MoneyShareBox>, ctx: RpcContext): Promise<{ bid: number; shares: MoneyShare[] }> {
    const b = await this.access.box(ctx.actor, a.bid, 'manage');
    auditTarget('money box', String(b.row.title), a.bid);
    const [u] = await this.db.query('SELECT uid FROM users WHERE uid = ?', [a.uid]);
    if (!u) throw notFound('User not found');
    if (Number(b.row.uid) === a.uid) throw invalid('The owner has the box already', { uid: 'the owner has the box already' });
    if (a.share) {
      const [has] = await this.db.query('SELECT 1 AS x FROM money_box_users WHERE bid = ? AND uid = ?', [a.bid, a.uid]);
      if (!has) await this.db.query('INSERT INTO money_box_users (bid, uid) VALUES (?, ?)', [a.bid, a.uid]);
    } else await this.db.query('DELETE FROM money_box_users WHERE bid = ? AND uid = ?', [a.bid, a.uid]);
    return { bid: a.bid, shares: await this.shares(a.bid) };
  }

  // -------------------------------------------------------------------------------------------
  // Transactions

  @Rpc('money.getTransactions', {
    role: Role.user, input: MoneyGetTransactions,
    summary: `{bid, limit? (${MONEY_PAGE}), offset? (0), p_?, select? (columns), from?, to?, timeMore?, tags? (any of), tag?, untagged?, type?, q?}: newest day first: {list: [{trid, bid, uid, type, val ("12.50"), tags, time_set, description, time_create, time_update}], count, balance (the box's, exact), limit, offset, days? (sums of the page's days)}`,
  })
  async getTransactions(a: z.output<typeof MoneyGetTransactions>, ctx: RpcContext): Promise<MoneyTransactions> {
    const b = await this.access.box(ctx.actor, a.bid);
    const limit = a.limit ?? MONEY_PAGE;
    const offset = a.p_ ? (a.p_ - 1) * limit : (a.offset ?? 0);
    const f = normFilter(a);
    const balance = formatKopecks(String(b.row.balance ?? 0));
    const pick = (list: MoneyTransaction[]) => (a.select ? list.map((x) => Object.fromEntries(a.select!.map((c) => [c, x[c]])) as unknown as MoneyTransaction) : list);
    const fast = await this.pageBySums(f, limit, offset);
    if (fast) return { ...fast, list: pick(fast.list), balance, limit, offset };
    const w = whereOf(f);
    const [{ n }] = await this.db.query(`SELECT COUNT(*) AS n FROM money_transactions t WHERE ${w.sql}`, w.params);
    const rows: Row[] = await this.db.query(`SELECT ${TX_SELECT} FROM money_transactions t WHERE ${w.sql} ORDER BY t.time_set DESC, t.trid DESC LIMIT ? OFFSET ?`, [...w.params, limit, offset]);
    return { list: pick(rows.map(txView)), count: kop(n), balance, limit, offset };
  }

  /**
   * A page without an OFFSET scan over the whole box, for a range and a type, and for one tag or no
   * tags: the sums per day (`money_days`, or `money_tag_days` of that tag, '' for no tags; one row per
   * day) give the count and the day the page starts on; the rows are then read from that day on
   * (through the relay's (bid, tag, day) index for a tag). Null for other filters (several tags, text).
   */
  private async pageBySums(f: TxFilter, limit: number, offset: number): Promise<{ list: MoneyTransaction[]; count: number; days?: MoneyDaySum[] } | null> {
    if (f.q) return null;
    const tag = f.tags?.length === 1 && !f.tag ? f.tags[0] : !f.tags && f.tag ? f.tag : undefined;
    if ((f.tags || f.tag) && tag === undefined) return null;
    if (tag !== undefined && f.untagged) return null;
    const mode = tag !== undefined ? 'tag' : f.untagged ? 'untagged' : 'all';
    const w = ['bid = ?'];
    const p: unknown[] = [f.bid];
    if (mode !== 'all') { w.push('tag = ?'); p.push(tag ?? ''); }
    if (f.from) { w.push('day >= ?'); p.push(f.from); }
    if (f.to) { w.push('day <= ?'); p.push(f.to); }
    const days: Row[] = await this.db.query(`SELECT day, income, expense, n_income, n_expense FROM ${mode === 'all' ? 'money_days' : 'money_tag_days'} WHERE ${w.join(' AND ')} ORDER BY day DESC`, p);
    const nOf = (d: Row) => (f.type === 1 ? kop(d.n_income) : f.type === 0 ? kop(d.n_expense) : kop(d.n_income) + kop(d.n_expense));
    let count = 0;
    let start: string | null = null;
    let low = '';
    let skip = 0;
    let want = 0;
    for (const d of days) {
      const n = nOf(d);
      if (start === null && count + n > offset) {
        start = String(d.day);
        skip = offset - count;
        want = skip + limit;
      }
      count += n;
      // the page's last day: a closed range lets both databases walk the index by range
      // (MariaDB reads `bid = ? AND day <= ?` as a ref on bid and filters row by row)
      if (start !== null && want > 0) {
        low = String(d.day);
        want -= n;
      }
    }
    if (start === null) return { list: [], count, ...(mode === 'all' ? { days: [] } : {}) };
    let rows: Row[];
    if (mode === 'tag') {
      const tw = ['r.bid = ?', 'r.tag = ?', 'r.time_set <= ?', 'r.time_set >= ?'];
      const tp: unknown[] = [f.bid, tag, start, low];
      if (f.type !== undefined) { tw.push('t.type = ?'); tp.push(f.type); }
      rows = await this.db.query(
        `SELECT ${TX_SELECT} FROM money_tag_relay r JOIN money_transactions t ON t.trid = r.trid WHERE ${tw.join(' AND ')} ORDER BY r.time_set DESC, r.trid DESC LIMIT ? OFFSET ?`,
        [...tp, limit, skip],
      );
    } else {
      const tw = ['t.bid = ?', 't.time_set <= ?', 't.time_set >= ?'];
      const tp: unknown[] = [f.bid, start, low];
      if (f.type !== undefined) { tw.push('t.type = ?'); tp.push(f.type); }
      if (mode === 'untagged') tw.push("t.tags = ''");
      rows = await this.db.query(`SELECT ${TX_SELECT} FROM money_transactions t WHERE ${tw.join(' AND ')} ORDER BY t.time_set DESC, t.trid DESC LIMIT ? OFFSET ?`, [...tp, limit, skip]);
    }
    const list = rows.map(txView);
    if (mode !== 'all') return { list, count };
    const onPage = new Set(list.map((x) => x.time_set));
    const sums = days.filter((d) => onPage.has(String(d.day))).map((d) => ({ day: String(d.day), income: formatKopecks(String(d.income)), expense: formatKopecks(String(d.expense)) }));
    return { list, count, days: sums };
  }

  @Rpc('money.getTransaction', { role: Role.user, input: MoneyTrid, summary: `{trid}: one transaction ('${MONEY_MSG.transactionNotFound}' when its box is not yours)` })
  async getTransaction(a: z.output<typeof MoneyTrid>, ctx: RpcContext): Promise<MoneyTransaction> {
    return txView(await this.transactionRow(ctx.actor, a.trid));
  }

  /** A transaction the caller may use (its box's access), else 404. */
  private async transactionRow(actor: Actor, trid: number): Promise<Row> {
    const [r] = await this.db.query(`SELECT ${TX_SELECT} FROM money_transactions t WHERE t.trid = ?`, [trid]);
    if (!r) throw notFound(MONEY_MSG.transactionNotFound);
    try {
      await this.access.box(actor, Number(r.bid));
    } catch {
      throw notFound(MONEY_MSG.transactionNotFound);
    }
    return r;
  }

  async rulesOf(bid: number): Promise<Array<{ contains: string; tags: string }>> {
    const rows: Row[] = await this.db.query('SELECT contains, tags FROM money_rules WHERE bid = ? ORDER BY pos, Id', [bid]);
    return rows.map((r) => ({ contains: String(r.contains), tags: String(r.tags) }));
  }

  @Rpc('money.setTransaction', {
    role: Role.user, write: true, input: MoneySetTransaction,
    summary: `{bid, trid?, type (0 expense, 1 income; missing: '${MONEY_MSG.typeRequired}'), val (number or "0.10"; at most 2 decimals), tags? (comma separated), time_set (yyyy-MM-dd), description?}: without trid adds (the box's rules add their tags), with trid changes it; the box's balance changes in the same database transaction: {trid, balance, message}`,
  })
  async setTransaction(a: MoneySetTransaction, ctx: RpcContext): Promise<{ trid: number; balance: string; message: string }> {
    const b = await this.access.box(ctx.actor, a.bid);
    const description = a.description ?? '';
    let tags = a.tags ?? [];
    const dialect = this.tx.dialect;
    const now = dbTime();
    if (a.trid) {
      const trid = a.trid;
      const next: NewTx = { uid: ctx.actor.uid, type: a.type, val: a.val, tags, time_set: a.time_set, description };
      const r = await this.tx.run(() => updateSteps(dialect, a.bid, trid, next, now));
      auditTarget('money transaction', `${formatKopecks(a.val)} ${a.time_set} in ${String(b.row.title)}`, trid);
      return { trid, balance: formatKopecks(r.balance), message: MONEY_MSG.updateOk };
    }
    tags = applyRules(await this.rulesOf(a.bid), description, tags);
    const next: NewTx = { uid: ctx.actor.uid, type: a.type, val: a.val, tags, time_set: a.time_set, description };
    const r = await this.tx.run(() => insertSteps(dialect, a.bid, [next], now));
    auditTarget('money transaction', `${formatKopecks(a.val)} ${a.time_set} in ${String(b.row.title)}`, r.trids[0]);
    return { trid: r.trids[0], balance: formatKopecks(r.balance), message: MONEY_MSG.insertOk };
  }

  @Rpc('money.deleteTransaction', {
    role: Role.user, write: true, input: MoneyTrid,
    summary: '{trid}: removes the transaction irreversibly; the balance changes in the same database transaction: {trid, balance, message}',
  })
  async deleteTransaction(a: z.output<typeof MoneyTrid>, ctx: RpcContext): Promise<{ trid: number; balance: string; message: string }> {
    const r0 = await this.transactionRow(ctx.actor, a.trid);
    auditTarget('money transaction', `${formatKopecks(String(r0.val))} ${String(r0.time_set)}`, a.trid);
    const dialect = this.tx.dialect;
    const bid = Number(r0.bid);
    const r = await this.tx.run(() => deleteSteps(dialect, bid, a.trid, dbTime()));
    return { trid: a.trid, balance: formatKopecks(r.balance), message: MONEY_MSG.deleteOk };
  }

  // -------------------------------------------------------------------------------------------
  // Tags

  /** `r.<bid column>` limited to one box (checked) or to the boxes the caller sees. */
  private async tagScope(actor: Actor, bid: number | undefined, column: string): Promise<{ sql: string; params: unknown[] }> {
    if (bid) {
      await this.access.box(actor, bid);
      return { sql: `${column} = ?`, params: [bid] };
    }
    return this.access.scope(actor, column);
  }

  private static tagRows = (rows: Row[]): MoneyTag[] => rows.map((r) => ({ tag: String(r.tag), n: kop(r.n) }));

  @Rpc('money.getTagsPopular', { role: Role.user, input: MoneyTagsPopular, summary: `{bid?, limit? (${MONEY_TAG_LIMIT})}: the tags of the box (or of every box you see) by how many transactions carry them: [{tag, n}]` })
  async getTagsPopular(a: z.output<typeof MoneyTagsPopular>, ctx: RpcContext): Promise<MoneyTag[]> {
    const s = await this.tagScope(ctx.actor, a.bid, 'bid');
    const rows: Row[] = await this.db.query(`SELECT tag, SUM(n) AS n FROM money_box_tags WHERE ${s.sql} AND n > 0 GROUP BY tag ORDER BY n DESC, tag LIMIT ?`, [...s.params, a.limit ?? MONEY_TAG_LIMIT]);
    return MoneyService.tagRows(rows);
  }

  @Rpc('money.searchTags', {
    role: Role.user, input: MoneySearchTags,
    summary: `{q, bid?, exclude? (tags already entered), limit? (${MONEY_TAG_LIMIT})}: tags containing q (starting with it first, then by use), without the excluded ones: [{tag, n}]`,
  })
  async searchTags(a: z.output<typeof MoneySearchTags>, ctx: RpcContext): Promise<MoneyTag[]> {
    const s = await this.tagScope(ctx.actor, a.bid, 'bid');
    const q = a.q.replace(/\s+/g, ' ').toLowerCase();
    const w = [s.sql, 'n > 0'];
    const p: unknown[] = [...s.params];
    if (q) { w.push(`tag ${LIKE_CONTAINS}`); p.push(containsPattern(q)); }
    if (a.exclude?.length) { w.push(`tag NOT IN (${a.exclude.map(() => '?').join(', ')})`); p.push(...a.exclude); }
    const rows: Row[] = await this.db.query(
      `SELECT tag, SUM(n) AS n FROM money_box_tags WHERE ${w.join(' AND ')} GROUP BY tag
       ORDER BY CASE WHEN tag ${LIKE_CONTAINS} THEN 0 ELSE 1 END, SUM(n) DESC, tag LIMIT ?`,
      [...p, prefixPattern(q), a.limit ?? MONEY_TAG_LIMIT],
    );
    return MoneyService.tagRows(rows);
  }

  @Rpc('money.getTagsByTagsRelay', {
    role: Role.user, input: MoneyTagsByRelay,
    summary: `{tags, bid?, exclude?, limit? (${MONEY_TAG_LIMIT})}: tags used together with any of \`tags\` on the same transactions (the latest ${RELAY_SAMPLE} carrying them), by how often, without \`tags\` and \`exclude\`: [{tag, n}]`,
  })
  async getTagsByTagsRelay(a: z.output<typeof MoneyTagsByRelay>, ctx: RpcContext): Promise<MoneyTag[]> {
    if (!a.tags.length) return [];
    const s = await this.tagScope(ctx.actor, a.bid, 'r1.bid');
    const skip = [...new Set([...a.tags, ...(a.exclude ?? [])])];
    const rows: Row[] = await this.db.query(
      `SELECT r2.tag AS tag, COUNT(DISTINCT r2.trid) AS n
       FROM (SELECT r1.trid FROM money_tag_relay r1 WHERE ${s.sql} AND r1.tag IN (${a.tags.map(() => '?').join(', ')}) ORDER BY r1.time_set DESC, r1.trid DESC LIMIT ${RELAY_SAMPLE}) x
       JOIN money_tag_relay r2 ON r2.trid = x.trid
       WHERE r2.tag NOT IN (${skip.map(() => '?').join(', ')})
       GROUP BY r2.tag ORDER BY n DESC, r2.tag LIMIT ?`,
      [...s.params, ...a.tags, ...skip, a.limit ?? MONEY_TAG_LIMIT],
    );
    return MoneyService.tagRows(rows);
  }

  // -------------------------------------------------------------------------------------------
  // Rules

  @Rpc('money.getRules', { role: Role.user, input: MoneyBid, summary: '{bid}: the box\'s rules in order: [{Id, contains, tags}] (a new transaction whose description contains `contains`, ignoring case, gets `tags`)' })
  async getRules(a: z.output<typeof MoneyBid>, ctx: RpcContext): Promise<MoneyRuleView[]> {
    await this.access.box(ctx.actor, a.bid);
    const rows: Row[] = await this.db.query('SELECT Id, contains, tags FROM money_rules WHERE bid = ? ORDER BY pos, Id', [a.bid]);
    return rows.map((r) => ({ Id: Number(r.Id), contains: String(r.contains), tags: String(r.tags) }));
  }

  @Rpc('money.setRules', {
    role: Role.user, write: true, input: MoneySetRules,
    summary: '{bid, rules: [{contains, tags}]}: replaces the box\'s rules (applied to new transactions, on insert and CSV import): the rules as getRules',
  })
  async setRules(a: z.output<typeof MoneySetRules>, ctx: RpcContext): Promise<MoneyRuleView[]> {
    const b = await this.access.box(ctx.actor, a.bid);
    auditTarget('money box', String(b.row.title), a.bid);
    const dialect = this.tx.dialect;
    await this.tx.run(function* () {
      // under the box lock, like every write of the box
      yield* lockBox(dialect, a.bid);
      yield* write('DELETE FROM money_rules WHERE bid = ?', [a.bid]);
      let pos = 0;
      for (const r of a.rules) yield* write('INSERT INTO money_rules (bid, pos, contains, tags) VALUES (?, ?, ?, ?)', [a.bid, pos++, r.contains, r.tags.join(',')]);
    });
    return this.getRules({ bid: a.bid }, ctx);
  }
}
