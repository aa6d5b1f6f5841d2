/**
 * The Wildberries seller APIs on loopback (EXTERNAL-APIS.md "Wildberries seller APIs"; the published
 * OpenAPI files of the content, statistics, analytics and promotion APIs), one local server per API
 * family, as the real ones live on four hosts. Every route wants `Authorization: <token>` (no
 * "Bearer"); anything else is a 401 with the services' error body `{title, detail, code, requestId,
 * origin, status, statusText, timestamp}`.
 *
 * - content  `POST /content/v2/get/cards/list`: `{settings: {cursor: {limit, updatedAt?, nmID?}}}` ->
 *   `{cards, cursor: {updatedAt, nmID, total}}` (cards by updatedAt, then nmID; `total` is the page's size).
 * - statistics `GET /api/v5/supplier/reportDetailByPeriod?dateFrom&dateTo&limit&rrdid` -> the rows whose
 *   rr_dt is in the range and rrd_id > rrdid, by rrd_id, at most `limit`; 204 when none are left.
 * - analytics `POST /api/analytics/v3/sales-funnel/products` `{selectedPeriod: {start, end}, nmIds, limit, offset}`
 *   -> `{data: {products: [{product: {nmId, title, vendorCode, brandName, stocks}, statistic: {selected}}]}}`.
 * - advert `GET /adv/v1/upd?from&to` (at most 31 days: 400 beyond, like the service) -> the invoices;
 *   `GET /api/advert/v2/adverts?ids=` -> `{adverts: [{id, nm_settings: [{nm_id}], settings: {name}, type, status}]}`.
 *
 * The state is plain data the test reads and changes; failures are scripted on the routes
 * (`wb.statistics.script(WB_ROUTES.finance, {status: 429, headers: {'x-ratelimit-retry': '1'}})`).
 */
import { startFakeHttp, type FakeHttp, type FakeReply, type FakeRequest } from '../fake-http.js';

export const WB_ROUTES = {
  cards: 'POST /content/v2/get/cards/list',
  finance: 'GET /api/v5/supplier/reportDetailByPeriod',
  funnel: 'POST /api/analytics/v3/sales-funnel/products',
  upd: 'GET /adv/v1/upd',
  adverts: 'GET /api/advert/v2/adverts',
} as const;

export interface FakeWbCard {
  nmID: number;
  imtID: number;
  vendorCode: string;
  brand: string;
  title: string;
  photos: Array<{ big: string; c246x328: string }>;
  updatedAt: string;
}

/** A finance report row as the service sends it (rubles as numbers). */
export interface FakeFinanceRow {
  rrd_id: number;
  nm_id: number;
  doc_type_name: string;
  supplier_oper_name: string;
  quantity: number;
  retail_price: number;
  retail_amount: number;
  delivery_amount: number;
  return_amount: number;
  delivery_rub: number;
  ppvz_for_pay: number;
  storage_fee: number;
  penalty: number;
  sale_dt: string;
  order_dt: string;
  rr_dt: string;
  [k: string]: unknown;
}

export interface FakeFunnel {
  openCount: number;
  cartCount: number;
  orderCount: number;
  orderSum: number;
  buyoutCount: number;
  buyoutSum: number;
  cancelCount: number;
  avgOrdersCountPerDay: number;
  stocks: { wb: number; mp: number };
}

export interface FakeUpd {
  updNum: number;
  updTime: string;
  updSum: number;
  advertId: number;
  campName: string;
  advertType: number;
  advertStatus: number;
}

export interface FakeAdvert {
  id: number;
  nms: number[];
  name: string;
  type: number;
  status: number;
}

export interface WbState {
  token: string;
  cards: FakeWbCard[];
  finance: FakeFinanceRow[];
  funnel: Record<number, FakeFunnel>;
  upd: FakeUpd[];
  adverts: FakeAdvert[];
}

const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const r2 = (v: number) => Math.round(v * 100) / 100;

/**
 * A seller over `days` days ending `today`: `cards` cards (nmID 300001…); every card sells on most days
 * (1-3 pieces at a price that moves with a weekly pattern), a return now and then, logistics rows
 * (deliveries, one return trip), a storage row per week; card 300003 never sells (a card with no rows
 * still has a row on /wb); two adverts (one over cards 1 and 2, one over card 1) with daily spend.
 */
export function defaultWbState(today: string, opts: { cards?: number; days?: number; token?: string } = {}): WbState {
  const n = opts.cards ?? 5;
  const days = opts.days ?? 60;
  const cards: FakeWbCard[] = [];
  for (let i = 1; i <= n; i++) {
    cards.push({
      nmID: 300000 + i, imtID: 900000 + i, vendorCode: `ART-${i}`, brand: 'Книжный дом', title: `Книга ${i}`,
      photos: [{ big: `https://basket-01.wbbasket.ru/vol${i}/big/1.webp`, c246x328: `https://basket-01.wbbasket.ru/vol${i}/c246x328/1.webp` }],
      updatedAt: `2025-0${1 + (i % 9)}-1${i % 10}T10:00:00.000Z`,
    });
  }
  const finance: FakeFinanceRow[] = [];
  let rrd = 1000;
  const row = (nm: number, day: string, over: Partial<FakeFinanceRow>): FakeFinanceRow => ({
    rrd_id: ++rrd, realizationreport_id: 1, nm_id: nm, doc_type_name: '', supplier_oper_name: '', quantity: 0, retail_price: 0, retail_amount: 0, delivery_amount: 0, return_amount: 0,
    delivery_rub: 0, ppvz_for_pay: 0, storage_fee: 0, penalty: 0, sale_dt: `${day}T12:00:00`, order_dt: `${addDays(day, -2)}T09:30:00`, rr_dt: day, ...over,
  });
  const start = addDays(today, -(days - 1));
  for (let d = 0; d < days; d++) {
    const day = addDays(start, d);
    for (const c of cards) {
      const i = c.nmID - 300000;
      if (i === 3) continue;
      if ((d + i) % 5 === 4) continue; // a day without a sale
      const qty = 1 + ((d * 7 + i) % 3);
      const price = 500 + i * 100 + [0, 20, 40, 60, 40, 20, 0][d % 7] * (i % 2 === 0 ? 1 : 2);
      const paid = r2(price * 0.85);
      finance.push(row(c.nmID, day, { doc_type_name: 'Продажа', supplier_oper_name: 'Продажа', quantity: qty, retail_price: price, retail_amount: r2(paid * qty), ppvz_for_pay: r2(paid * qty * 0.8) }));
      finance.push(row(c.nmID, day, { supplier_oper_name: 'Логистика', delivery_amount: qty, delivery_rub: r2(45.5 * qty) }));
      if ((d + i) % 9 === 0) {
        finance.push(row(c.nmID, day, { doc_type_name: 'Возврат', supplier_oper_name: 'Возврат', quantity: 1, retail_price: price, retail_amount: paid, ppvz_for_pay: r2(paid * 0.8) }));
        finance.push(row(c.nmID, day, { supplier_oper_name: 'Логистика', return_amount: 1, delivery_rub: 50 }));
      }
      if (d % 7 === 6) finance.push(row(c.nmID, day, { supplier_oper_name: 'Хранение', storage_fee: r2(3.17 * i), sale_dt: '', order_dt: '' }));
      if (d === 10 && i === 2) finance.push(row(c.nmID, day, { supplier_oper_name: 'Штраф', penalty: 150 }));
    }
  }
  const funnel: Record<number, FakeFunnel> = {};
  for (const c of cards) {
    const i = c.nmID - 300000;
    funnel[c.nmID] = { openCount: 1000 * i, cartCount: 100 * i, orderCount: 40 * i, orderSum: 20000.5 * i, buyoutCount: 30 * i, buyoutSum: 15000.25 * i, cancelCount: 2 * i, avgOrdersCountPerDay: r2(40 * i / days), stocks: { wb: 10 * i, mp: i } };
  }
  const upd: FakeUpd[] = [];
  for (let d = 0; d < days; d++) {
    const day = addDays(start, d);
    upd.push({ updNum: 0, updTime: `${day}T03:00:00+03:00`, updSum: 101, advertId: 7001, campName: 'Авто: книги', advertType: 8, advertStatus: 9 });
    if (d % 2 === 0) upd.push({ updNum: 0, updTime: `${day}T15:00:00+03:00`, updSum: 33.33, advertId: 7002, campName: 'Поиск: книга 1', advertType: 9, advertStatus: 9 });
  }
  const adverts: FakeAdvert[] = [
    { id: 7001, nms: [300001, 300002], name: 'Авто: книги', type: 8, status: 9 },
    { id: 7002, nms: [300001], name: 'Поиск: книга 1', type: 9, status: 9 },
  ];
  return { token: opts.token ?? 'wb-token-eyJhbGciOi.test-signature', cards, finance, funnel, upd, adverts };
}

export interface FakeWb {
  content: FakeHttp;
  statistics: FakeHttp;
  analytics: FakeHttp;
  advert: FakeHttp;
  state: WbState;
  /** The environment that points the console at these servers. */
  env: Record<string, string>;
  /** Every request to every family, in order. */
  all(): FakeRequest[];
  close(): Promise<void>;
}

const unauthorized = (origin: string): FakeReply => ({
  status: 401,
  body: { title: 'unauthorized', detail: 'token problem; token is malformed: could not parse', code: '07e4668e-ac2242c5c8c5-[UK-4dx7JUdskGZ]', requestId: 'req-401', origin, status: 401, statusText: 'Unauthorized', timestamp: new Date().toISOString() },
});

export async function startFakeWb(state: WbState): Promise<FakeWb> {
  const authed = (origin: string, h: (req: FakeRequest) => FakeReply) => (req: FakeRequest): FakeReply => (req.headers.authorization === state.token ? h(req) : unauthorized(origin));
  const content = await startFakeHttp({
    [WB_ROUTES.cards]: authed('s2s-api-auth-content', (req) => {
      const cur = req.json?.settings?.cursor ?? {};
      const limit = Math.min(100, Number(cur.limit ?? 100));
      const sorted = [...state.cards].sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : a.nmID - b.nmID));
      let from = 0;
      if (cur.updatedAt && cur.nmID) {
        from = sorted.findIndex((c) => c.updatedAt === cur.updatedAt && c.nmID === cur.nmID) + 1;
      }
      const page = sorted.slice(from, from + limit);
      const last = page[page.length - 1];
      return { body: { cards: page.map((c) => ({ ...c, subjectID: 1, subjectName: 'Книги', sizes: [{ chrtID: c.nmID * 10, techSize: '0', skus: [`${c.nmID}000`] }] })), cursor: { updatedAt: last?.updatedAt ?? null, nmID: last?.nmID ?? null, total: page.length } } };
    }),
  });
  const statistics = await startFakeHttp({
    [WB_ROUTES.finance]: authed('s2s-api-auth-stat', (req) => {
      const from = req.query.get('dateFrom') ?? '';
      const to = req.query.get('dateTo') ?? '';
      const limit = Number(req.query.get('limit') ?? 100000);
      const after = Number(req.query.get('rrdid') ?? 0);
      const rows = state.finance.filter((r) => r.rr_dt.slice(0, 10) >= from.slice(0, 10) && r.rr_dt.slice(0, 10) <= to.slice(0, 10) && r.rrd_id > after).sort((a, b) => a.rrd_id - b.rrd_id).slice(0, limit);
      return rows.length ? { body: rows } : { status: 204 };
    }),
  });
  const analytics = await startFakeHttp({
    [WB_ROUTES.funnel]: authed('s2s-api-auth-analytics', (req) => {
      const limit = Number(req.json?.limit ?? 50);
      const offset = Number(req.json?.offset ?? 0);
      if (!req.json?.selectedPeriod?.start || !req.json?.selectedPeriod?.end) return { status: 400, body: { title: 'bad request', detail: 'selectedPeriod is required', requestId: 'req-400', status: 400 } };
      const ids: number[] = Array.isArray(req.json?.nmIds) && req.json.nmIds.length ? req.json.nmIds : state.cards.map((c) => c.nmID);
      const page = ids.slice(offset, offset + limit);
      return {
        body: {
          data: {
            products: page.filter((nm) => state.funnel[nm]).map((nm) => {
              const c = state.cards.find((x) => x.nmID === nm)!;
              const f = state.funnel[nm];
              return {
                product: { nmId: nm, title: c.title, vendorCode: c.vendorCode, brandName: c.brand, subjectId: 1, subjectName: 'Книги', tags: [], rating: 4.8, feedbackRating: 4.9, stocks: f.stocks },
                statistic: {
                  selected: {
                    period: req.json.selectedPeriod, openCount: f.openCount, cartCount: f.cartCount, orderCount: f.orderCount, orderSum: f.orderSum, buyoutCount: f.buyoutCount, buyoutSum: f.buyoutSum,
                    cancelCount: f.cancelCount, cancelSum: 0, avgPrice: 500, avgOrdersCountPerDay: f.avgOrdersCountPerDay, shareOrderPercent: 1, addToWishlist: 3, timeToReady: { days: 1, hours: 2, mins: 3 }, localizationPercent: 80,
                    conversions: { addToCartPercent: 10, cartToOrderPercent: 40, buyoutPercent: 75 },
                  },
                },
              };
            }),
          },
        },
      };
    }),
  });
  const advert = await startFakeHttp({
    [WB_ROUTES.upd]: authed('s2s-api-auth-adv', (req) => {
      const from = req.query.get('from') ?? '';
      const to = req.query.get('to') ?? '';
      if (!from || !to || Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) > 30) return { status: 400, body: { error: 'Invalid period: at most 31 days' } };
      const day = (u: FakeUpd) => new Date(Date.parse(u.updTime)).toISOString().slice(0, 10);
      return { body: state.upd.filter((u) => day(u) >= from && day(u) <= to) };
    }),
    [WB_ROUTES.adverts]: authed('s2s-api-auth-adv', (req) => {
      const ids = (req.query.get('ids') ?? '').split(',').filter(Boolean).map(Number);
      return {
        body: {
          adverts: state.adverts.filter((a) => ids.includes(a.id)).map((a) => ({
            id: a.id, bid_type: 'manual', status: a.status, type: a.type, settings: { name: a.name, payment_type: 'cpm', placements: { search: true, recommendations: false } },
            nm_settings: a.nms.map((nm) => ({ nm_id: nm, bids_kopecks: { search: 25000, recommendations: 0 }, subject: { id: 1, name: 'Книги' } })),
            timestamps: { created: '2025-01-01T00:00:00Z', updated: '2025-06-01T00:00:00Z', started: '2025-01-02T00:00:00Z', deleted: '2100-01-01T00:00:00Z' },
          })),
        },
      };
    }),
  });
  return {
    content, statistics, analytics, advert, state,
    env: { WB_TOKEN: state.token, WB_CONTENT_URL: content.url, WB_STATISTICS_URL: statistics.url, WB_ANALYTICS_URL: analytics.url, WB_ADVERT_URL: advert.url },
    all: () => [...content.requests, ...statistics.requests, ...analytics.requests, ...advert.requests].sort((a, b) => a.at - b.at),
    close: async () => { await Promise.all([content.close(), statistics.close(), analytics.close(), advert.close()]); },
  };
}
