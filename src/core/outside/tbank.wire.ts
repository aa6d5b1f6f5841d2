/**
 * The T-Bank Invest API's REST answers (EXTERNAL-APIS.md "T-Bank Invest API"; the investAPI
 * repository's openapi.yaml v1.43 and .proto contracts) and their decoders. Only the fields the console
 * reads are checked; the rest pass unseen.
 *
 * Numbers: `Quotation {units: int64 as a string, nano: int32}` and `MoneyValue` (+ currency) are
 * converted exactly with decimal.js into decimal strings ("1000.5", "-0.01"): value = units + nano / 1e9,
 * both parts carrying the sign (-0.01 is {units: "-0", nano: -10000000}). Decimal strings keep the value
 * exact in the answer cache (JSON) and in the tables; the area converts them to numbers at the edge.
 * Enums arrive as names (`RISK_LEVEL_LOW`) or numbers; timestamps as RFC 3339 and are kept as days.
 */
import { Decimal as BaseDecimal } from 'decimal.js';
import { z } from 'zod';

/** 40 significant digits: an int64 unit part (19 digits) and 9 nano digits stay exact (the default is 20). */
export const Decimal = BaseDecimal.clone({ precision: 40, toExpNeg: -40, toExpPos: 40 });
export type Decimal = BaseDecimal;
const NANO = new Decimal(1_000_000_000);

/** int64 as JSON: the gateway sends a string; a plain integer number is read too. */
const int64 = z.union([z.string().regex(/^[+-]?\d{1,20}$/, 'must be an int64 string'), z.number().int()]);

/** units + nano / 1e9, exactly, as a decimal string in plain notation ("-0.01", "1000.5", "0"). */
export function quotationToDecimal(q: { units?: string | number | null; nano?: number | null } | null | undefined): string {
  if (!q) return '0';
  const units = new Decimal(String(q.units ?? 0).replace(/^\+/, ''));
  const nano = new Decimal(q.nano ?? 0);
  const v = units.plus(nano.dividedBy(NANO));
  return v.isZero() ? '0' : v.toFixed();
}

/** The inverse (tests and the fake broker): a decimal string as a Quotation, both parts with the value's sign. */
export function decimalToQuotation(value: string | number): { units: string; nano: number } {
  const d = new Decimal(value);
  const units = d.trunc();
  const nano = d.minus(units).times(NANO).toNumber();
  const sign = d.isNegative() && !d.isZero() ? '-' : '';
  return { units: units.isZero() ? `${sign}0` : units.toFixed(), nano: nano === 0 ? 0 : nano };
}

export const QuotationWire = z.object({ units: int64.optional(), nano: z.number().int().min(-999_999_999).max(999_999_999).optional() });
export const MoneyWire = QuotationWire.extend({ currency: z.string().optional() });

/** A Quotation decoded: the decimal string, or null when absent. */
const quotation = QuotationWire.nullish().transform((q) => (q ? quotationToDecimal(q) : null));
const money = MoneyWire.nullish().transform((m) => (m ? { value: quotationToDecimal(m), currency: (m.currency ?? '').toLowerCase() } : null));

/** An RFC 3339 timestamp kept as its UTC day ('YYYY-MM-DD'); the epoch (1970-01-01, "not set" in the API) and absence are null. */
const day = z
  .string()
  .nullish()
  .transform((s, ctx): string | null => {
    if (!s) return null;
    const t = Date.parse(s);
    if (Number.isNaN(t)) {
      ctx.addIssue({ code: 'custom', message: 'must be an RFC 3339 timestamp' });
      return z.NEVER;
    }
    return t <= 0 ? null : new Date(t).toISOString().slice(0, 10);
  });
const time = z
  .string()
  .nullish()
  .transform((s): number | null => {
    if (!s) return null;
    const t = Date.parse(s);
    return Number.isNaN(t) || t <= 0 ? null : t;
  });

/** An enum name without its prefix ('RISK_LEVEL_LOW' -> 'LOW'); numbers as their digits. */
const enumName = (prefix: string) =>
  z.union([z.string(), z.number()]).nullish().transform((v) => (v === null || v === undefined ? '' : String(v).replace(new RegExp(`^${prefix}`), '')));

const RISK_BY_NAME: Record<string, 0 | 1 | 2 | 3> = { UNSPECIFIED: 0, LOW: 1, MODERATE: 2, HIGH: 3 };
/** RISK_LEVEL_UNSPECIFIED|LOW|MODERATE|HIGH = 0-3 (EXTERNAL-APIS.md). */
const riskLevel = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((v): 0 | 1 | 2 | 3 => {
    if (typeof v === 'number') return v >= 0 && v <= 3 ? (v as 0 | 1 | 2 | 3) : 0;
    return RISK_BY_NAME[String(v ?? '').replace(/^RISK_LEVEL_/, '')] ?? 0;
  });
const bool = z.boolean().nullish().transform((v) => v === true);
const str = z.string().nullish().transform((v) => v ?? '');

// ---------------------------------------------------------------------------------------------
// UsersService/GetAccounts

export const AccountsWire = z.object({
  accounts: z
    .array(z.object({ id: z.string().min(1), name: str, type: enumName('ACCOUNT_TYPE_'), status: enumName('ACCOUNT_STATUS_'), openedDate: day, closedDate: day }))
    .nullish()
    .transform((a) => a ?? []),
});
export type TbankAccount = z.output<typeof AccountsWire>['accounts'][number];

// ---------------------------------------------------------------------------------------------
// OperationsService/GetPortfolio

export const PortfolioWire = z.object({
  accountId: str,
  totalAmountBonds: money,
  totalAmountPortfolio: money,
  positions: z
    .array(
      z.object({
        figi: str,
        instrumentType: str,
        instrumentUid: str,
        ticker: str,
        classCode: str,
        quantity: quotation,
        averagePositionPrice: money,
        currentPrice: money,
        currentNkd: money,
      }),
    )
    .nullish()
    .transform((p) => p ?? []),
});
export type TbankPortfolio = z.output<typeof PortfolioWire>;
export type TbankPosition = TbankPortfolio['positions'][number];

// ---------------------------------------------------------------------------------------------
// InstrumentsService/Bonds and BondBy

export const BondWire = z.object({
  figi: z.string().min(1),
  ticker: str,
  classCode: str,
  isin: str,
  uid: str,
  lot: z.number().int().nullish().transform((v) => v ?? 1),
  currency: str.transform((v) => v.toLowerCase()),
  name: str,
  couponQuantityPerYear: z.number().int().nullish().transform((v) => v ?? 0),
  maturityDate: day,
  placementDate: day,
  callDate: day,
  nominal: money,
  aciValue: money,
  floatingCouponFlag: bool,
  perpetualFlag: bool,
  amortizationFlag: bool,
  forQualInvestorFlag: bool,
  liquidityFlag: bool,
  riskLevel,
});
export type TbankBond = z.output<typeof BondWire>;

export const BondsWire = z.object({ instruments: z.array(BondWire).nullish().transform((a) => a ?? []) });
export const BondByWire = z.object({ instrument: BondWire });

// ---------------------------------------------------------------------------------------------
// InstrumentsService/GetBondCoupons

export const CouponsWire = z.object({
  events: z
    .array(
      z.object({
        figi: str,
        couponDate: day,
        couponNumber: int64.nullish().transform((v) => (v === null || v === undefined ? 0 : Number(v))),
        fixDate: day,
        payOneBond: money,
        couponType: enumName('COUPON_TYPE_'),
        couponStartDate: day,
        couponEndDate: day,
        couponPeriod: z.number().int().nullish().transform((v) => v ?? null),
      }),
    )
    .nullish()
    .transform((a) => a ?? []),
});
export type TbankCoupon = z.output<typeof CouponsWire>['events'][number];

// ---------------------------------------------------------------------------------------------
// MarketDataService/GetLastPrices

export const LastPricesWire = z.object({
  lastPrices: z
    .array(z.object({ figi: str, instrumentUid: str, price: quotation, time }))
    .nullish()
    .transform((a) => a ?? []),
});
export type TbankLastPrice = z.output<typeof LastPricesWire>['lastPrices'][number];

// ---------------------------------------------------------------------------------------------
// Errors: HTTP status with {code, message, description}

export const ErrorWire = z.object({
  code: z.union([z.number(), z.string()]).nullish(),
  message: z.string().nullish(),
  description: z.union([z.string(), z.number()]).nullish(),
});
export type TbankErrorBody = z.output<typeof ErrorWire>;

/** The currencies' instruments whose last price is the ruble rate (USD000UTSTOM, EUR_RUB__TOM). */
export const RATE_FIGIS: Record<string, string> = { usd: 'BBG0013HGFT4', eur: 'BBG0013HJJ31' };
