import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { In, type DataSource, type EntityManager } from 'typeorm';
import type { z } from 'zod';
import type { Paged } from '../../contracts/auth.js';
import {
  NET_CAT_COLUMNS, NET_CAT_PAGES_MAX, NET_HOST_COLUMNS, NET_MSG, NET_PAGE, NET_PAGE_COLUMNS, NET_STORAGE_DEFAULT, NET_TEXT_BYTES_MAX,
  NetCatGet, NetCatInsert, NetCatUpdate, NetHostGet, NetHostInsert, NetHostUpdate, NetPageGet, NetPageInsert, NetPageUpdate, NetSetRelay,
  type NetCat, type NetHost, type NetPage, type NetRelay,
} from '../../contracts/network-info.js';
import { Role } from '../../contracts/roles.js';
import { toStoragePlaceholders } from '../../contracts/storage.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { cleanHtml } from '../../core/content/sanitize.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import { Rpc } from '../../core/rpc/rpc.decorator.js';
import { NetCatEntity, NetCatPageEntity, NetHostEntity, NetPageEntity } from './network-info.entities.js';

type Row = Record<string, unknown>;
type HostCol = (typeof NET_HOST_COLUMNS)[number];
type PageCol = (typeof NET_PAGE_COLUMNS)[number];
type CatCol = (typeof NET_CAT_COLUMNS)[number];

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
/** Only the columns asked for (`select`), in the entity's order, then the joined keys. */
function pick<T extends object>(full: T, cols: readonly (keyof T & string)[]): Partial<T> {
  const out: Partial<T> = {};
  for (const c of cols) out[c] = full[c];
  return out;
}

const hostView = (h: NetHostEntity): NetHost => ({ Id: h.Id, name: h.name, domain: h.domain, code_in_storage: h.code_in_storage });
const pageView = (p: NetPageEntity): NetPage => ({
  Id: p.Id, host: p.host, title: p.title, description: str(p.description), h1: p.h1, body: str(p.body), keys_relay: str(p.keys_relay),
  storage: p.storage, cover: p.cover, date: iso(p.date), date_update: iso(p.date_update),
});
const catView = (c: NetCatEntity): NetCat => ({
  Id: c.Id, title: c.title, description: str(c.description), h1: c.h1, body_bottom: str(c.body_bottom), host: c.host, storage: c.storage, cover: c.cover,
});

/**
 * Stored rich text (a page body, a category's body_bottom): the one sanitiser first, then every
 * storage URL, whatever its host, becomes `{storage:<alias>}` (001 §4), so a stored body never holds a
 * host name and the sites expand the placeholder with their own storage URL.
 */
export const storedHtml = (html: string | undefined) => toStoragePlaceholders(cleanHtml(html));

/**
 * Network info (001 §2 "Network info", §3, §7 network_info.Host/Page/Cats.*, GET /tpl/get_hosts;
 * docs/network-info.md): the network's hosts, their pages and categories, and which categories a
 * page is in. Admins only (001 §6). Reads take `select` (a whitelist of columns), `Id` (one row),
 * `host` (filter), `joinHosh` (the host's name, domain, code_in_storage) and `joinCatRelay` (a page's
 * categoriesRelay, a category's pages); lists are paged (`p_`, `limit`, 20) with their count. Every
 * write is one transaction, audited with its object.
 */
@Injectable()
export class NetworkInfoService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private paging(a: { p_?: number; limit?: number }) {
    const limit = a.limit ?? NET_PAGE;
    const page = a.p_ ?? 1;
    return { limit, page, skip: (page - 1) * limit };
  }

  // -------------------------------------------------------------------------------------------
  // Hosts

  @Rpc('network_info.Host.get', {
    role: Role.admin, input: NetHostGet,
    summary: `{select?, Id?, p_?, limit? (${NET_PAGE})}: with Id one host {Id, name, domain, code_in_storage} ('${NET_MSG.hostNotFound}'), else {list, count, page, limit} by Id; select names the columns answered (${NET_HOST_COLUMNS.join(', ')}; others 422)`,
  })
  async hostGet(a: z.output<typeof NetHostGet> = {}): Promise<Partial<NetHost> | Paged<Partial<NetHost>>> {
    const cols: readonly HostCol[] = a.select ?? NET_HOST_COLUMNS;
    const repo = this.db.getRepository(NetHostEntity);
    if (a.Id) {
      const h = await repo.findOneBy({ Id: a.Id });
      if (!h) throw notFound(NET_MSG.hostNotFound);
      return pick(hostView(h), cols);
    }
    const { limit, page, skip } = this.paging(a);
    const [rows, count] = await repo.findAndCount({ order: { Id: 'ASC' }, skip, take: limit });
    return { list: rows.map((h) => pick(hostView(h), cols)), count, page, limit };
  }

  /** GET /tpl/get_hosts: every host for the sites' templates, by Id. */
  async tplHosts(): Promise<NetHost[]> {
    return (await this.db.getRepository(NetHostEntity).find({ order: { Id: 'ASC' } })).map(hostView);
  }

  @Rpc('network_info.Host.insert', {
    role: Role.admin, write: true, input: NetHostInsert,
    summary: `{name, domain, code_in_storage?}: a new host (code_in_storage defaults to the domain; a domain is one host's: 409): {insertId, message: '${NET_MSG.insertOk}'}`,
  })
  async hostInsert(a: z.output<typeof NetHostInsert>): Promise<{ insertId: number; message: string }> {
    const insertId = await this.db.transaction(async (m) => {
      await this.domainFree(m, a.domain);
      const r = await m.getRepository(NetHostEntity).insert({ name: a.name, domain: a.domain, code_in_storage: a.code_in_storage || a.domain });
      return Number(r.identifiers[0].Id);
    });
    auditTarget('network host', a.domain, insertId);
    return { insertId, message: NET_MSG.insertOk };
  }

  @Rpc('network_info.Host.update', {
    role: Role.admin, write: true, input: NetHostUpdate,
    summary: `{Id, name?, domain?, code_in_storage?}: changes the fields given: {Id, message: '${NET_MSG.updateOk}'}`,
  })
  async hostUpdate(a: z.output<typeof NetHostUpdate>): Promise<{ Id: number; message: string }> {
    await this.db.transaction(async (m) => {
      const repo = m.getRepository(NetHostEntity);
      const cur = await repo.findOneBy({ Id: a.Id });
      if (!cur) throw notFound(NET_MSG.hostNotFound);
      auditTarget('network host', cur.domain, cur.Id);
      const patch: Partial<NetHostEntity> = {};
      if (a.name !== undefined) patch.name = a.name;
      if (a.domain !== undefined && a.domain !== cur.domain) {
        await this.domainFree(m, a.domain, cur.Id);
        patch.domain = a.domain;
      }
      if (a.code_in_storage !== undefined) patch.code_in_storage = a.code_in_storage || (patch.domain ?? cur.domain);
      if (Object.keys(patch).length) await repo.update({ Id: cur.Id }, patch);
    });
    return { Id: a.Id, message: NET_MSG.updateOk };
  }

  private async domainFree(m: EntityManager, domain: string, exceptId?: number) {
    const other = await m.getRepository(NetHostEntity).findOneBy({ domain });
    if (other && other.Id !== exceptId) throw new AppError(409, `${NET_MSG.domainTaken}: ${domain} (#${other.Id})`, 'rules', { domain: NET_MSG.domainTaken });
  }

  /** The host a page or category names, inside the write's transaction; 422 naming `host` when there is none. */
  private async hostOf(m: EntityManager, Id: number): Promise<NetHostEntity> {
    const h = await m.getRepository(NetHostEntity).findOneBy({ Id });
    if (!h) throw invalid(`host: ${NET_MSG.hostNotFound} (#${Id})`, { host: `${NET_MSG.hostNotFound} (#${Id})` });
    return h;
  }

  // -------------------------------------------------------------------------------------------
  // Pages

  @Rpc('network_info.Page.get', {
    role: Role.admin, input: NetPageGet,
    summary: `{select?, Id?, host?, joinHosh?, joinCatRelay?, p_?, limit? (${NET_PAGE})}: with Id one page ('${NET_MSG.pageNotFound}'), else {list, count, page, limit}, newest first, of one host when \`host\` is given. Columns: ${NET_PAGE_COLUMNS.join(', ')} (select names some; others 422); joinHosh adds the host's name, domain, code_in_storage; joinCatRelay adds categoriesRelay [{Id, title}]. Bodies hold {storage:<alias>} placeholders`,
  })
  async pageGet(a: z.output<typeof NetPageGet> = {}): Promise<Partial<NetPage> | Paged<Partial<NetPage>>> {
    const cols: readonly PageCol[] = a.select ?? NET_PAGE_COLUMNS;
    const repo = this.db.getRepository(NetPageEntity);
    // Id and host are read whatever `select` says: the joins need them.
    const select = Object.fromEntries([...new Set<PageCol>(['Id', 'host', ...cols])].map((c) => [c, true])) as Record<PageCol, true>;
    const where = { ...(a.Id ? { Id: a.Id } : {}), ...(a.host ? { host: a.host } : {}) };
    if (a.Id) {
      const p = await repo.findOne({ select, where });
      if (!p) throw notFound(NET_MSG.pageNotFound);
      return (await this.pageRows([p], cols, a))[0];
    }
    const { limit, page, skip } = this.paging(a);
    const [rows, count] = await repo.findAndCount({ select, where, order: { date: 'DESC', Id: 'DESC' }, skip, take: limit });
    return { list: await this.pageRows(rows, cols, a), count, page, limit };
  }

  private async pageRows(rows: NetPageEntity[], cols: readonly PageCol[], a: { joinHosh?: 0 | 1; joinCatRelay?: 0 | 1 }): Promise<Partial<NetPage>[]> {
    const hosts = a.joinHosh ? await this.hostsById(rows.map((r) => r.host)) : null;
    const relays = a.joinCatRelay ? await this.catsOfPages(rows.map((r) => r.Id)) : null;
    return rows.map((r) => {
      const out: Partial<NetPage> = pick(pageView(r), cols);
      if (hosts) {
        const h = hosts.get(r.host);
        Object.assign(out, { name: h?.name ?? '', domain: h?.domain ?? '', code_in_storage: h?.code_in_storage ?? '' });
      }
      if (relays) out.categoriesRelay = relays.get(r.Id) ?? [];
      return out;
    });
  }

  private async hostsById(ids: number[]): Promise<Map<number, NetHostEntity>> {
    const uniq = [...new Set(ids)];
    if (!uniq.length) return new Map();
    const rows = await this.db.getRepository(NetHostEntity).findBy({ Id: In(uniq) });
    return new Map(rows.map((h) => [h.Id, h]));
  }

  /** The categories of each page, by title. */
  private async catsOfPages(pageIds: number[], m: EntityManager = this.db.manager): Promise<Map<number, NetRelay[]>> {
    const out = new Map<number, NetRelay[]>();
    if (!pageIds.length) return out;
    const rows: Row[] = await m.createQueryBuilder()
      .select('r.Id_page', 'page').addSelect('c.Id', 'Id').addSelect('c.title', 'title')
      .from(NetCatPageEntity, 'r').innerJoin(NetCatEntity, 'c', 'c.Id = r.Id_cat')
      .where('r.Id_page IN (:...ids)', { ids: [...new Set(pageIds)] })
      .orderBy('c.title', 'ASC').addOrderBy('c.Id', 'ASC')
      .getRawMany();
    for (const r of rows) {
      const list = out.get(Number(r.page)) ?? [];
      list.push({ Id: Number(r.Id), title: str(r.title) });
      out.set(Number(r.page), list);
    }
    return out;
  }

  @Rpc('network_info.Page.insert', {
    role: Role.admin, write: true, input: NetPageInsert,
    summary: `{host, title, description?, h1?, body?, keys_relay?, storage? (${NET_STORAGE_DEFAULT}), cover? ('' or a 32-character alias), categoriesRelay? [cat Ids of the same host]}: a new page with its categories in one transaction (body sanitised, storage URLs stored as {storage:<alias>}; date set): {insertId, message: '${NET_MSG.insertOk}'}`,
  })
  async pageInsert(a: z.output<typeof NetPageInsert>): Promise<{ insertId: number; message: string }> {
    const body = storedHtml(a.body);
    const insertId = await this.db.transaction(async (m) => {
      await this.hostOf(m, a.host);
      const cats = a.categoriesRelay ? await this.catsOfHost(m, a.host, a.categoriesRelay, 'categoriesRelay') : [];
      const now = new Date();
      const r = await m.getRepository(NetPageEntity).insert({
        host: a.host, title: a.title, description: a.description ?? '', h1: a.h1 ?? '', body, keys_relay: a.keys_relay ?? '',
        storage: a.storage ?? NET_STORAGE_DEFAULT, cover: a.cover ?? '', date: now, date_update: now,
      });
      const Id = Number(r.identifiers[0].Id);
      await this.setPageCats(m, Id, cats);
      return Id;
    });
    auditTarget('network page', a.title, insertId);
    return { insertId, message: NET_MSG.insertOk };
  }

  @Rpc('network_info.Page.update', {
    role: Role.admin, write: true, input: NetPageUpdate,
    summary: `{Id, host?, title?, description?, h1?, body?, keys_relay?, storage?, cover?, categoriesRelay?}: changes the fields given and, with categoriesRelay, replaces the page's categories, in one transaction (date_update set); every category must be of the page's host: {Id, message: '${NET_MSG.updateOk}'}`,
  })
  async pageUpdate(a: z.output<typeof NetPageUpdate>): Promise<{ Id: number; message: string }> {
    const body = a.body !== undefined ? storedHtml(a.body) : undefined;
    await this.db.transaction(async (m) => {
      const repo = m.getRepository(NetPageEntity);
      const cur = await repo.findOne({ select: { Id: true, host: true, title: true }, where: { Id: a.Id } });
      if (!cur) throw notFound(NET_MSG.pageNotFound);
      auditTarget('network page', cur.title, cur.Id);
      const host = a.host ?? cur.host;
      if (a.host !== undefined && a.host !== cur.host) await this.hostOf(m, a.host);
      let cats: number[] | undefined;
      if (a.categoriesRelay) cats = await this.catsOfHost(m, host, a.categoriesRelay, 'categoriesRelay');
      else if (host !== cur.host) {
        // The page moves to another host with the categories it has: they must be that host's too.
        const have = (await this.catsOfPages([cur.Id], m)).get(cur.Id) ?? [];
        await this.catsOfHost(m, host, have.map((c) => c.Id), 'host');
      }
      const patch: Partial<NetPageEntity> = {};
      if (a.host !== undefined) patch.host = a.host;
      if (a.title !== undefined) patch.title = a.title;
      if (a.description !== undefined) patch.description = a.description;
      if (a.h1 !== undefined) patch.h1 = a.h1;
      if (body !== undefined) patch.body = body;
      if (a.keys_relay !== undefined) patch.keys_relay = a.keys_relay;
      if (a.storage !== undefined) patch.storage = a.storage;
      if (a.cover !== undefined) patch.cover = a.cover;
      if (!Object.keys(patch).length && !cats) return;
      await repo.update({ Id: cur.Id }, { ...patch, date_update: new Date() });
      if (cats) await this.setPageCats(m, cur.Id, cats);
    });
    return { Id: a.Id, message: NET_MSG.updateOk };
  }

  /**
   * The category Ids given, checked inside the write's transaction: each must exist and belong to
   * `host` (422 naming `field` otherwise). Answers them sorted, each once.
   */
  private async catsOfHost(m: EntityManager, host: number, ids: number[], field: string): Promise<number[]> {
    const uniq = [...new Set(ids)].sort((x, y) => x - y);
    if (!uniq.length) return uniq;
    const found = await m.getRepository(NetCatEntity).find({ select: { Id: true, host: true }, where: { Id: In(uniq) } });
    const byId = new Map(found.map((c) => [c.Id, c.host]));
    const unknown = uniq.filter((c) => !byId.has(c));
    const other = uniq.filter((c) => byId.has(c) && byId.get(c) !== host);
    const why: string[] = [];
    if (unknown.length) why.push(`unknown categories: ${unknown.join(', ')}`);
    if (other.length) why.push(`categories of another host: ${other.join(', ')} (the page's host is #${host})`);
    if (why.length) throw invalid(`${field}: ${why.join('; ')}`, { [field]: why.join('; ') });
    return uniq;
  }

  /** Replaces a page's categories (inside the caller's transaction). */
  private async setPageCats(m: EntityManager, page: number, cats: number[]) {
    await m.getRepository(NetCatPageEntity).delete({ Id_page: page });
    if (cats.length) await m.getRepository(NetCatPageEntity).insert(cats.map((Id_cat) => ({ Id_cat, Id_page: page })));
  }

  // -------------------------------------------------------------------------------------------
  // Categories

  @Rpc('network_info.Cats.get', {
    role: Role.admin, input: NetCatGet,
    summary: `{select?, Id?, host?, joinHosh?, joinCatRelay?, p_?, limit? (${NET_PAGE})}: with Id one category ('${NET_MSG.catNotFound}'), else {list, count, page, limit} by Id, of one host when \`host\` is given. Columns: ${NET_CAT_COLUMNS.join(', ')} (select names some; others 422); joinHosh adds the host's name, domain, code_in_storage; joinCatRelay adds pages [{Id, title}] (newest ${NET_CAT_PAGES_MAX}) and pages_count`,
  })
  async catGet(a: z.output<typeof NetCatGet> = {}): Promise<Partial<NetCat> | Paged<Partial<NetCat>>> {
    const cols: readonly CatCol[] = a.select ?? NET_CAT_COLUMNS;
    const repo = this.db.getRepository(NetCatEntity);
    const select = Object.fromEntries([...new Set<CatCol>(['Id', 'host', ...cols])].map((c) => [c, true])) as Record<CatCol, true>;
    const where = { ...(a.Id ? { Id: a.Id } : {}), ...(a.host ? { host: a.host } : {}) };
    if (a.Id) {
      const c = await repo.findOne({ select, where });
      if (!c) throw notFound(NET_MSG.catNotFound);
      return (await this.catRows([c], cols, a))[0];
    }
    const { limit, page, skip } = this.paging(a);
    const [rows, count] = await repo.findAndCount({ select, where, order: { Id: 'ASC' }, skip, take: limit });
    return { list: await this.catRows(rows, cols, a), count, page, limit };
  }

  private async catRows(rows: NetCatEntity[], cols: readonly CatCol[], a: { joinHosh?: 0 | 1; joinCatRelay?: 0 | 1 }): Promise<Partial<NetCat>[]> {
    const hosts = a.joinHosh ? await this.hostsById(rows.map((r) => r.host)) : null;
    const pages = a.joinCatRelay ? await this.pagesOfCats(rows.map((r) => r.Id)) : null;
    return rows.map((r) => {
      const out: Partial<NetCat> = pick(catView(r), cols);
      if (hosts) {
        const h = hosts.get(r.host);
        Object.assign(out, { name: h?.name ?? '', domain: h?.domain ?? '', code_in_storage: h?.code_in_storage ?? '' });
      }
      if (pages) {
        const p = pages.get(r.Id);
        out.pages = p?.list ?? [];
        out.pages_count = p?.count ?? 0;
      }
      return out;
    });
  }

  /** Each category's newest pages (at most NET_CAT_PAGES_MAX, by date then Id) and how many it has. */
  private async pagesOfCats(catIds: number[]): Promise<Map<number, { list: NetRelay[]; count: number }>> {
    const out = new Map<number, { list: NetRelay[]; count: number }>();
    const ids = [...new Set(catIds)];
    if (!ids.length) return out;
    const e = (n: string) => this.db.driver.escape(n);
    const marks = ids.map(() => '?').join(', ');
    const counts: Row[] = await this.db.query(
      `SELECT ${e('Id_cat')} AS cat, COUNT(*) AS n FROM ${e('net_cat_page')} WHERE ${e('Id_cat')} IN (${marks}) GROUP BY ${e('Id_cat')}`, ids,
    );
    for (const r of counts) out.set(Number(r.cat), { list: [], count: Number(r.n) });
    const rows: Row[] = await this.db.query(
      `SELECT cat, Id, title FROM (
         SELECT r.${e('Id_cat')} AS cat, p.${e('Id')} AS Id, p.${e('title')} AS title,
           ROW_NUMBER() OVER (PARTITION BY r.${e('Id_cat')} ORDER BY p.${e('date')} DESC, p.${e('Id')} DESC) AS n
         FROM ${e('net_cat_page')} r JOIN ${e('net_pages')} p ON p.${e('Id')} = r.${e('Id_page')}
         WHERE r.${e('Id_cat')} IN (${marks})
       ) x WHERE n <= ? ORDER BY cat, n`,
      [...ids, NET_CAT_PAGES_MAX],
    );
    for (const r of rows) out.get(Number(r.cat))?.list.push({ Id: Number(r.Id), title: str(r.title) });
    return out;
  }

  /** body_bottom as stored: sanitised, placeholders; TEXT on MariaDB, so at most 65,535 bytes (422 naming the field). */
  private storedBodyBottom(html: string): string {
    const out = storedHtml(html);
    const bytes = Buffer.byteLength(out, 'utf8');
    if (bytes > NET_TEXT_BYTES_MAX) {
      const why = `at most ${NET_TEXT_BYTES_MAX} bytes once stored (this one is ${bytes})`;
      throw invalid(`body_bottom: ${why}`, { body_bottom: why });
    }
    return out;
  }

  @Rpc('network_info.Cats.insert', {
    role: Role.admin, write: true, input: NetCatInsert,
    summary: `{host, title, description?, h1?, body_bottom?, storage? (${NET_STORAGE_DEFAULT}), cover?}: a new category of the host (body_bottom sanitised, storage URLs stored as {storage:<alias>}): {insertId, message: '${NET_MSG.insertOk}'}`,
  })
  async catInsert(a: z.output<typeof NetCatInsert>): Promise<{ insertId: number; message: string }> {
    const body_bottom = this.storedBodyBottom(a.body_bottom ?? '');
    const insertId = await this.db.transaction(async (m) => {
      await this.hostOf(m, a.host);
      const r = await m.getRepository(NetCatEntity).insert({
        host: a.host, title: a.title, description: a.description ?? '', h1: a.h1 ?? '', body_bottom,
        storage: a.storage ?? NET_STORAGE_DEFAULT, cover: a.cover ?? '',
      });
      return Number(r.identifiers[0].Id);
    });
    auditTarget('network category', a.title, insertId);
    return { insertId, message: NET_MSG.insertOk };
  }

  @Rpc('network_info.Cats.update', {
    role: Role.admin, write: true, input: NetCatUpdate,
    summary: `{Id, host?, title?, description?, h1?, body_bottom?, storage?, cover?}: changes the fields given (a category related to pages cannot move to another host: 422): {Id, message: '${NET_MSG.updateOk}'}`,
  })
  async catUpdate(a: z.output<typeof NetCatUpdate>): Promise<{ Id: number; message: string }> {
    const body_bottom = a.body_bottom !== undefined ? this.storedBodyBottom(a.body_bottom) : undefined;
    await this.db.transaction(async (m) => {
      const repo = m.getRepository(NetCatEntity);
      const cur = await repo.findOne({ select: { Id: true, host: true, title: true }, where: { Id: a.Id } });
      if (!cur) throw notFound(NET_MSG.catNotFound);
      auditTarget('network category', cur.title, cur.Id);
      if (a.host !== undefined && a.host !== cur.host) {
        await this.hostOf(m, a.host);
        const other = await m.createQueryBuilder()
          .select('COUNT(*)', 'n').from(NetCatPageEntity, 'r').innerJoin(NetPageEntity, 'p', 'p.Id = r.Id_page')
          .where('r.Id_cat = :cat AND p.host <> :host', { cat: cur.Id, host: a.host }).getRawOne<{ n: unknown }>();
        const n = Number(other?.n ?? 0);
        if (n > 0) {
          const why = `the category is related to ${n === 1 ? '1 page' : `${n} pages`} of another host: remove them from it first`;
          throw invalid(`host: ${why}`, { host: why });
        }
      }
      const patch: Partial<NetCatEntity> = {};
      if (a.host !== undefined) patch.host = a.host;
      if (a.title !== undefined) patch.title = a.title;
      if (a.description !== undefined) patch.description = a.description;
      if (a.h1 !== undefined) patch.h1 = a.h1;
      if (body_bottom !== undefined) patch.body_bottom = body_bottom;
      if (a.storage !== undefined) patch.storage = a.storage;
      if (a.cover !== undefined) patch.cover = a.cover;
      if (Object.keys(patch).length) await repo.update({ Id: cur.Id }, patch);
    });
    return { Id: a.Id, message: NET_MSG.updateOk };
  }

  @Rpc('network_info.Cats.setRelayCatAndPage', {
    role: Role.admin, write: true, input: NetSetRelay,
    summary: `{page, cats: [cat Ids]}: replaces the page's categories (each of the page's host; [] removes all) in one transaction and sets its date_update: {page, cats, message: '${NET_MSG.updateOk}'}`,
  })
  async setRelayCatAndPage(a: z.output<typeof NetSetRelay>): Promise<{ page: number; cats: number[]; message: string }> {
    const cats = await this.db.transaction(async (m) => {
      const p = await m.getRepository(NetPageEntity).findOne({ select: { Id: true, host: true, title: true }, where: { Id: a.page } });
      if (!p) throw notFound(NET_MSG.pageNotFound);
      auditTarget('network page', p.title, p.Id);
      const ids = await this.catsOfHost(m, p.host, a.cats, 'cats');
      await this.setPageCats(m, p.Id, ids);
      await m.getRepository(NetPageEntity).update({ Id: p.Id }, { date_update: new Date() });
      return ids;
    });
    return { page: a.page, cats, message: NET_MSG.updateOk };
  }
}
