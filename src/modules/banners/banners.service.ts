import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { In, type DataSource, type EntityManager, type Repository } from 'typeorm';
import type { z } from 'zod';
import type { Paged } from '../../contracts/auth.js';
import {
  BANNER_BATCH_KEY, BANNER_BATCH_MAX, BANNER_CHART_DAYS, BANNER_DEFAULT_RATE, BANNER_PAGE, BANNER_STATUS, BannerEvent, BannerGet, BannerSave,
  type BannerCounters, type BannerDay, type BannerDetail, type BannerView, type SiteBanner,
} from '../../contracts/banners.js';
import { ctrOf, STREAM_MAX_AGE_DAYS, STREAM_MAX_AHEAD_MIN } from '../../contracts/input-stream.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { containsPattern, likeNamed } from '../../core/database/like.js';
import { deleteBelow } from '../../core/database/prune.js';
import { notFound } from '../../core/errors.js';
import { StorageService } from '../../core/storage/storage.service.js';
import type { StreamSiteEntity } from '../input-stream/input-stream.entities.js';
import { InputStreamService } from '../input-stream/input-stream.service.js';
import { BannerEntity } from './banners.entities.js';

const DAY = 86_400;
/** The storage owner code of the banners' images (docs/architecture.md "Storage"). */
export const BANNER_STORAGE_CODE = 'abs';
const MINUTE = 60;
/** Click keys are kept as long as a batch can still be counted (events older than STREAM_MAX_AGE_DAYS are refused). */
const CLICK_KEEP_MINUTES = (STREAM_MAX_AGE_DAYS + 1) * 1440;
const CHUNK = 400;

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
const today = (now = Date.now()) => Math.floor(now / 1000 / DAY);
/** The counters as the screens and /abs/get show them. */
export const countersOf = (views: number, click: number, tviews: number, tclick: number): BannerCounters => ({ views, tviews, click, tclick, ctr: ctrOf(views, click) });

/**
 * Ad banners (001 §2 "Ad banners", §3, §7 /abs/get and /abs/set_abs; docs/content.md "Banners"): the
 * banners and their images (the console's StorageService), the counters summed per banner per UTC
 * day from the sites' batches (a record kind of the input stream's ingestion, registered at start),
 * and what a site reads: the working banners with their rates.
 */
@Injectable()
export class BannersService implements OnModuleInit {
  private readonly dialect: 'sqlite' | 'mariadb';

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectRepository(BannerEntity) private readonly banners: Repository<BannerEntity>,
    private readonly storage: StorageService,
    private readonly stream: InputStreamService,
  ) {
    this.dialect = db.options.type === 'better-sqlite3' ? 'sqlite' : 'mariadb';
  }

  onModuleInit(): void {
    this.stream.registerKind({
      key: BANNER_BATCH_KEY,
      record: BannerEvent,
      max: BANNER_BATCH_MAX,
      check: (records, now) => this.checkEvents(records, now),
      apply: (m, site, records) => this.countEvents(m, site, records),
      prune: (now) => this.pruneClicks(now),
    });
  }

  // ------------------------------------------------------------------------------------------
  // Reading

  private view(b: BannerEntity, c: BannerCounters): BannerView {
    return {
      Idb: b.Idb, title: b.title, description: b.description ?? '', target: b.target ?? '', img: StorageService.urlOf(b.img),
      status: b.status, rate: b.rate, time_update: b.time_update.toISOString(), ...c,
    };
  }

  /** Totals and today's counts of the given banners. */
  private async counters(ids: number[], now = Date.now()): Promise<Map<number, BannerCounters>> {
    const out = new Map<number, BannerCounters>(ids.map((id) => [id, countersOf(0, 0, 0, 0)]));
    if (!ids.length) return out;
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT Idb, SUM(views) AS views, SUM(clicks) AS clicks,
              SUM(CASE WHEN ts = ? THEN views ELSE 0 END) AS tviews, SUM(CASE WHEN ts = ? THEN clicks ELSE 0 END) AS tclick
       FROM banner_days WHERE Idb IN (${ids.map(() => '?').join(', ')}) GROUP BY Idb`,
      [today(now), today(now), ...ids],
    );
    for (const r of rows) out.set(Number(r.Idb), countersOf(num(r.views), num(r.clicks), num(r.tviews), num(r.tclick)));
    return out;
  }

  /** GET /abs/get: the list (newest first, 20 per page, `q` on the title, `status`), or one banner with `Idb`. */
  async get(a: z.output<typeof BannerGet>): Promise<Paged<BannerView> | BannerDetail> {
    if (a.Idb !== undefined) return this.one(a.Idb, a.joinStats ? (a.days ?? BANNER_CHART_DAYS) : 0);
    const page = a.p_ ?? 1;
    const qb = this.banners.createQueryBuilder('b');
    if (a.q) qb.andWhere(likeNamed('b.title', 'q'), { q: containsPattern(a.q) });
    if (a.status !== undefined) qb.andWhere('b.status = :status', { status: a.status });
    const [rows, count] = await qb.orderBy('b.Idb', 'DESC').skip((page - 1) * BANNER_PAGE).take(BANNER_PAGE).getManyAndCount();
    const c = await this.counters(rows.map((b) => b.Idb));
    return { list: rows.map((b) => this.view(b, c.get(b.Idb)!)), count, page, limit: BANNER_PAGE };
  }

  /** One banner with its counters; with `days` > 0 also its series of the last `days` UTC days (every day, zeros included). */
  async one(Idb: number, days = 0, now = Date.now()): Promise<BannerDetail> {
    const b = await this.banners.findOne({ where: { Idb } });
    if (!b) throw notFound('Banner not found');
    const out: BannerDetail = this.view(b, (await this.counters([Idb], now)).get(Idb)!);
    if (days > 0) {
      const from = today(now) - days + 1;
      const rows: Record<string, unknown>[] = await this.db.query('SELECT ts, views, clicks FROM banner_days WHERE Idb = ? AND ts >= ? ORDER BY ts', [Idb, from]);
      const byDay = new Map(rows.map((r) => [Number(r.ts), r]));
      const series: BannerDay[] = [];
      for (let d = from; d <= today(now); d++) {
        const r = byDay.get(d);
        const views = num(r?.views);
        const click = num(r?.clicks);
        series.push({ time: d * DAY, views, click, ctr: ctrOf(views, click) });
      }
      out.series = series;
    }
    return out;
  }

  /** What a site reads (GET /abs/working, by site token): the working banners with a rate above 0, and their rates. */
  async working(): Promise<SiteBanner[]> {
    const rows = await this.banners.createQueryBuilder('b').where('b.status = :s AND b.rate > 0', { s: BANNER_STATUS.works }).orderBy('b.Idb', 'ASC').getMany();
    return rows.map((b) => ({ Idb: b.Idb, title: b.title, description: b.description ?? '', target: b.target ?? '', img: StorageService.urlOf(b.img), rate: b.rate }));
  }

  // ------------------------------------------------------------------------------------------
  // Writing

  /**
   * POST /abs/set_abs: makes (no Idb) or changes a banner; answers {Idb}. A new image (`img_data`) is
   * checked and put into the storage (code 'abs', docs/architecture.md "Storage") and its alias kept in
   * `img`; the banner row is written while the storage holds that alias still (a failed write takes the
   * new reference back). The image the banner showed before is released once the row is saved: its
   * 'abs' reference is dropped unless another banner shows the same image (a legacy `/files` key: its
   * file, which only this banner used, is removed). `img_remove: 1` drops the image.
   */
  async save(a: z.output<typeof BannerSave>, uid: number | null = null, now = new Date()): Promise<{ Idb: number }> {
    const old = a.Idb !== undefined ? await this.banners.findOne({ where: { Idb: a.Idb } }) : null;
    if (a.Idb !== undefined && !old) throw notFound('Banner not found');
    const patch: Partial<BannerEntity> = { time_update: now };
    if (a.title !== undefined) patch.title = a.title;
    if (a.description !== undefined) patch.description = a.description;
    if (a.target !== undefined) patch.target = a.target;
    if (a.status !== undefined) patch.status = a.status;
    if (a.rate !== undefined) patch.rate = a.rate;
    if (a.img_remove && !a.img_data) patch.img = null;
    const write = async (): Promise<number> => {
      if (old) {
        await this.banners.update({ Idb: old.Idb }, patch);
        return old.Idb;
      }
      const saved = await this.banners.save(this.banners.create({
        description: '', status: BANNER_STATUS.works, rate: BANNER_DEFAULT_RATE, img: null, ...patch, time_create: now,
      }));
      return saved.Idb;
    };
    const title = patch.title ?? old?.title ?? '';
    const Idb = a.img_data
      ? (await this.storage.putBase64With(a.img_data, { code: BANNER_STORAGE_CODE, fileName: `banner ${title}`.trim(), uid }, 'img_data', async (img) => {
        patch.img = img.alias;
        return write();
      })).result
      : await write();
    auditTarget('banner', title, Idb);
    if (old?.img && 'img' in patch && patch.img !== old.img) await this.releaseImage(old.img);
    return { Idb };
  }

  /** A banner no longer shows `ref`: its storage reference goes unless another banner shows it too. */
  private async releaseImage(ref: string): Promise<void> {
    if (StorageService.isLegacyKey(ref)) return this.storage.removeLegacy(ref);
    await this.storage.remove(ref, BANNER_STORAGE_CODE, () => this.banners.existsBy({ img: ref }));
  }

  // ------------------------------------------------------------------------------------------
  // Counting (the input stream's `banners` record kind; docs/input-stream.md "Record kinds")

  /** Refusals of a batch's banner records: a time outside the window ingestion accepts, or an unknown banner. */
  private async checkEvents(records: BannerEvent[], now: number): Promise<Record<string, string>> {
    const nowSec = Math.floor(now / 1000);
    const oldest = nowSec - STREAM_MAX_AGE_DAYS * DAY;
    const newest = nowSec + STREAM_MAX_AHEAD_MIN * 60;
    const fields: Record<string, string> = {};
    const ids = [...new Set(records.map((r) => r.Idb))];
    const known = new Set<number>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      for (const b of await this.banners.find({ select: { Idb: true }, where: { Idb: In(ids.slice(i, i + CHUNK)) } })) known.add(b.Idb);
    }
    records.forEach((r, i) => {
      if (r.time < oldest || r.time > newest) fields[`${i}.time`] ??= `time must be within the last ${STREAM_MAX_AGE_DAYS} days`;
      if (!known.has(r.Idb)) fields[`${i}.Idb`] ??= `unknown banner ${r.Idb}`;
    });
    return fields;
  }

  /** Adds a batch's banner records to banner_days, inside the batch's transaction. */
  private async countEvents(m: EntityManager, site: StreamSiteEntity, records: BannerEvent[]): Promise<void> {
    const days = new Map<string, { Idb: number; ts: number; views: number; clicks: number }>();
    const bucket = (Idb: number, ts: number) => {
      const k = `${Idb}|${ts}`;
      let b = days.get(k);
      if (!b) days.set(k, (b = { Idb, ts, views: 0, clicks: 0 }));
      return b;
    };
    // Clicks with a visitor: one per (banner, visitor, minute), across batches: the keys not yet in
    // banner_clicks count, grouped by banner and day so one INSERT ... IGNORE answers how many were new.
    const keyed = new Map<string, { Idb: number; ts: number; keys: Set<string> }>();
    for (const r of records) {
      const ts = Math.floor(r.time / DAY);
      if (r.views) bucket(r.Idb, ts).views += r.views;
      if (!r.clicks) continue;
      if (r.visitor === undefined) { bucket(r.Idb, ts).clicks += r.clicks; continue; }
      const visitor = createHash('sha256').update(`${site.Id}:${r.visitor}`).digest('hex').slice(0, 32);
      const g = keyed.get(`${r.Idb}|${ts}`) ?? { Idb: r.Idb, ts, keys: new Set<string>() };
      keyed.set(`${r.Idb}|${ts}`, g);
      g.keys.add(`${visitor}|${Math.floor(r.time / MINUTE)}`);
    }
    const ignore = this.dialect === 'sqlite' ? ['INSERT INTO', ' ON CONFLICT DO NOTHING'] : ['INSERT IGNORE INTO', ''];
    for (const g of keyed.values()) {
      const keys = [...g.keys];
      for (let i = 0; i < keys.length; i += CHUNK) {
        const chunk = keys.slice(i, i + CHUNK).map((k) => k.split('|'));
        const r = await m.queryRunner!.query(
          `${ignore[0]} banner_clicks (Idb, visitor, minute) VALUES ${chunk.map(() => '(?, ?, ?)').join(', ')}${ignore[1]}`,
          chunk.flatMap(([v, minute]) => [g.Idb, v, Number(minute)]),
          true,
        );
        bucket(g.Idb, g.ts).clicks += Number((r as { affected?: number }).affected ?? 0);
      }
    }
    const rows = [...days.values()].filter((b) => b.views || b.clicks);
    const tail = this.dialect === 'sqlite'
      ? ' ON CONFLICT(Idb, ts) DO UPDATE SET views = views + excluded.views, clicks = clicks + excluded.clicks'
      : ' ON DUPLICATE KEY UPDATE views = views + VALUES(views), clicks = clicks + VALUES(clicks)';
    for (let i = 0; i < rows.length; i += CHUNK) {
      const chunk = rows.slice(i, i + CHUNK);
      await m.query(`INSERT INTO banner_days (Idb, ts, views, clicks) VALUES ${chunk.map(() => '(?, ?, ?, ?)').join(', ')}${tail}`, chunk.flatMap((b) => [b.Idb, b.ts, b.views, b.clicks]));
    }
  }

  /** Adds counts straight to banner_days (the demo seeder): `rows` of {Idb, ts (epoch day), views, clicks}. */
  async addDays(rows: { Idb: number; ts: number; views: number; clicks: number }[]): Promise<void> {
    const tail = this.dialect === 'sqlite'
      ? ' ON CONFLICT(Idb, ts) DO UPDATE SET views = excluded.views, clicks = excluded.clicks'
      : ' ON DUPLICATE KEY UPDATE views = VALUES(views), clicks = VALUES(clicks)';
    for (let i = 0; i < rows.length; i += CHUNK) {
      const chunk = rows.slice(i, i + CHUNK);
      await this.db.query(`INSERT INTO banner_days (Idb, ts, views, clicks) VALUES ${chunk.map(() => '(?, ?, ?, ?)').join(', ')}${tail}`, chunk.flatMap((b) => [b.Idb, b.ts, b.views, b.clicks]));
    }
  }

  /** Click keys past the window a batch can still be counted in (the input stream's hourly retention). */
  async pruneClicks(now = Date.now()): Promise<number> {
    return deleteBelow(this.db, 'banner_clicks', 'minute', Math.floor(now / 1000 / MINUTE) - CLICK_KEEP_MINUTES, 1440);
  }
}
