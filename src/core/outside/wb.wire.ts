/**
 * The Wildberries seller APIs' answers (EXTERNAL-APIS.md "Wildberries seller APIs": the published
 * OpenAPI files of the content, statistics, analytics and promotion APIs, late 2025) and their
 * decoders. Only the fields the console reads are checked; the rest pass unseen. Rubles arrive as JSON
 * numbers with kopecks and are decoded to whole kopecks (`kop`), so sums in the tables are exact.
 */
import { z } from 'zod';

/** Rubles (a JSON number, or a numeric string) as whole kopecks; absent or null: 0. */
export const kop = z
  .union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/), z.null()])
  .optional()
  .transform((v) => (v === null || v === undefined ? 0 : Math.round(Number(v) * 100)));
const count = z.union([z.number(), z.null()]).optional().transform((v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0));
const optNum = z.union([z.number(), z.null()]).optional().transform((v) => (typeof v === 'number' && Number.isFinite(v) ? v : null));
const str = z.union([z.string(), z.null()]).optional().transform((v) => v ?? '');
/** A time (RFC 3339, or a day) as its UTC day 'YYYY-MM-DD'; absent: null. */
const dayOf = z
  .union([z.string(), z.null()])
  .optional()
  .transform((s, ctx): string | null => {
    if (!s) return null;
    if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return s;
    const t = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(s) ? s : `${s}Z`);
    if (Number.isNaN(t)) {
      ctx.addIssue({ code: 'custom', message: 'must be a date' });
      return z.NEVER;
    }
    return new Date(t).toISOString().slice(0, 10);
  });

/** Every host's error body (401/403/429): {title, detail, code, requestId, origin, status, statusText, timestamp}. */
export const ErrorWire = z.looseObject({
  title: z.string().optional(),
  detail: z.string().optional(),
  code: z.union([z.string(), z.number()]).optional(),
  requestId: z.string().optional(),
  origin: z.string().optional(),
  status: z.union([z.number(), z.string()]).optional(),
  statusText: z.string().optional(),
  message: z.string().optional(),
  errorText: z.string().optional(),
});

// ---------------------------------------------------------------------------------------------
// Content: POST /content/v2/get/cards/list

export const CardWire = z.looseObject({
  nmID: z.number().int().positive(),
  imtID: z.number().int().nullish(),
  vendorCode: str,
  brand: str,
  title: str,
  photos: z.array(z.looseObject({ big: z.string().nullish(), c246x328: z.string().nullish() })).nullish(),
  updatedAt: z.string().nullish(),
});
export type WbCard = z.output<typeof CardWire>;

export const CardsWire = z.looseObject({
  cards: z.array(CardWire).nullish().transform((v) => v ?? []),
  cursor: z.looseObject({ updatedAt: z.string().nullish(), nmID: z.number().int().nullish(), total: z.number().int() }),
});
export type WbCardsPage = z.output<typeof CardsWire>;

// ---------------------------------------------------------------------------------------------
// Statistics: GET /api/v5/supplier/reportDetailByPeriod (204: no more)

export const FinanceRowWire = z.looseObject({
  rrd_id: z.number().int().positive(),
  nm_id: z.number().int().nullish().transform((v) => v ?? 0),
  doc_type_name: str,
  supplier_oper_name: str,
  quantity: count,
  retail_price: kop,
  retail_amount: kop,
  delivery_amount: count,
  return_amount: count,
  delivery_rub: kop,
  ppvz_for_pay: kop,
  storage_fee: kop,
  penalty: kop,
  sale_dt: dayOf,
  order_dt: dayOf,
  rr_dt: dayOf,
});
export type WbFinanceRow = z.output<typeof FinanceRowWire>;
export const FinanceWire = z.array(FinanceRowWire).nullable().transform((v) => v ?? []);

// ---------------------------------------------------------------------------------------------
// Analytics: POST /api/analytics/v3/sales-funnel/products

const stocksOf = z
  .union([z.number(), z.looseObject({ wb: z.number().nullish(), mp: z.number().nullish(), balanceSum: z.number().nullish() }), z.null()])
  .optional()
  .transform((v) => (v === null || v === undefined ? null : typeof v === 'number' ? v : (v.wb ?? 0) + (v.mp ?? 0)));

export const FunnelProductWire = z.looseObject({
  product: z.looseObject({ nmId: z.number().int().positive(), title: str, vendorCode: str, brandName: str, stocks: stocksOf }),
  statistic: z.looseObject({
    selected: z.looseObject({
      openCount: count,
      cartCount: count,
      orderCount: count,
      orderSum: kop,
      buyoutCount: count,
      buyoutSum: kop,
      cancelCount: count,
      avgOrdersCountPerDay: optNum,
    }),
  }),
});
export type WbFunnelProduct = z.output<typeof FunnelProductWire>;
export const FunnelWire = z.looseObject({ data: z.looseObject({ products: z.array(FunnelProductWire).nullish().transform((v) => v ?? []) }) });

// ---------------------------------------------------------------------------------------------
// Promotion: GET /adv/v1/upd, GET /api/advert/v2/adverts

export const UpdRowWire = z.looseObject({
  updNum: z.number().int().nullish().transform((v) => v ?? 0),
  updTime: z.string(),
  updSum: kop,
  advertId: z.number().int().positive(),
  campName: str,
  advertType: optNum,
  advertStatus: optNum,
});
export type WbUpdRow = z.output<typeof UpdRowWire> & { day: string };
export const UpdWire = z.array(UpdRowWire).nullable().transform((v) => v ?? []);

export const AdvertWire = z.looseObject({
  id: z.number().int().positive(),
  nm_settings: z.array(z.looseObject({ nm_id: z.number().int().positive() })).nullish().transform((v) => v ?? []),
  settings: z.looseObject({ name: str, payment_type: z.string().nullish() }).nullish(),
  type: optNum,
  status: optNum,
});
export type WbAdvertWire = z.output<typeof AdvertWire>;
export const AdvertsWire = z.looseObject({ adverts: z.array(AdvertWire).nullish().transform((v) => v ?? []) });
