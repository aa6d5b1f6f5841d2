/**
 * Investments (001 §2 "Investments", §3 Account / Bond / risk levels / currencies, §4 next-coupon
 * colours, §5 coupon forecast and bonds, §6, §7 invest.*, §9; issue 22; docs/invest.md): the shapes
 * the server answers, the constants and labels of the spec, and the input schemas, shared by the
 * server and the UI.
 *
 * Numbers: every amount the broker sends as a Quotation / MoneyValue is converted exactly (decimal.js,
 * never a binary float sum) and answered as a JSON number whose decimal spelling is the exact value
 * ({units: "1000", nano: 500000000} -> 1000.5; {units: "-0", nano: -10000000} -> -0.01). Sums shown to
 * the kopeck are summed in decimal and rounded to 2 places once. Times named `ts_*` are epoch
 * milliseconds (null when unknown); days are 'YYYY-MM-DD'; months 'YYYY-MM'.
 *
 * Bond prices: `lastPrice` is the broker's quote in points = percent of nominal (98.5 means 98.5 % of
 * nominal); `price` is that in money per bond (lastPrice / 100 x nominal, the bond's currency);
 * `diff_percent` = lastPrice - 100 (the price against nominal, in %).
 */
import { z } from 'zod';
import { fieldKinds, flag, id, int, INT_MAX, optionalId, text } from './fields.js';

// ---------------------------------------------------------------------------------------------
// Constants (001 §9 and the issue)

/** 001 §9: bonds per screener page (`p_`). */
export const INVEST_SCREENER_PAGE = 15;
/** 001 §9: broker reads are cached this long (in the database: a restart or a second instance does not refetch). */
export const INVEST_CACHE_TTL_S = 600;
/** 001 §9: the forecast's default portfolio size (rubles) for the size input. */
export const INVEST_FORECAST_DEFAULT_SIZE = 30_000_000;
/** 001 §5: bonds whose coupon_percent is below this are left out of the forecast. */
export const INVEST_COUPON_MIN_PERCENT = 1;
/** 001 §4/§9: the next-coupon cell is green under 30 days, red under 10 days. */
export const NEXT_COUPON_GREEN_DAYS = 30;
export const NEXT_COUPON_RED_DAYS = 10;
/** 001 §9: liquidity is out of 100. */
export const INVEST_LIQUIDITY_MAX = 100;
/** getBondsNextClose: maturity or offer within this many days by default (the spec gives no number). */
export const INVEST_NEXT_CLOSE_DAYS = 90;
export const INVEST_NEXT_CLOSE_MAX_DAYS = 3660;
/** invest.Item.getBonds: rows answered by default and at most. */
export const INVEST_GET_BONDS_LIMIT = 50;
export const INVEST_GET_BONDS_MAX = 500;
/** The screener answers at most this many rows per page (`limit`; 15 by default). */
export const INVEST_SCREENER_LIMIT_MAX = 100;
/** Local accounts: positions per account at most, and the longest name. */
export const INVEST_LOCAL_POSITIONS_MAX = 500;
export const INVEST_LOCAL_NAME_MAX = 190;
/** A live subscription names at most this many bonds. */
export const INVEST_LIVE_FIGIS_MAX = 1000;
/** The calendar spans at most this many months. */
export const INVEST_CALENDAR_MAX_MONTHS = 600;

/** The account ids that are not broker accounts: the fixed sample portfolio, and local accounts (`local:<Id>`). */
export const INVEST_SAMPLE_ACCOUNT = 'sample';
export const localAccountId = (Id: number) => `local:${Id}`;
/** The local account Id of an accountId `local:<Id>`, else null. */
export function localIdOf(accountId: string): number | null {
  const m = /^local:(\d{1,10})$/.exec(accountId);
  if (!m) return null;
  const n = Number(m[1]);
  return n >= 1 && n <= INT_MAX ? n : null;
}

/**
 * The fixed sample portfolio (001 §2 "One view shows a fixed sample portfolio of 13 bonds"): 13
 * Russian federal loan bonds (OFZ) of the MOEX board TQOB, found in the catalogue by ticker, 10 of each.
 * Chosen to show every kind the screens mark: fixed coupons with maturities from 2027 to 2041,
 * an amortising bond (OFZ 46020) and a floating-coupon bond (OFZ-PK 29006). docs/invest.md lists them.
 */
export const INVEST_SAMPLE: ReadonlyArray<{ ticker: string; quantity: number; note: string }> = [
  { ticker: 'SU26207RMFS9', quantity: 10, note: 'OFZ 26207, fixed, 2027' },
  { ticker: 'SU26224RMFS4', quantity: 10, note: 'OFZ 26224, fixed, 2029' },
  { ticker: 'SU26228RMFS5', quantity: 10, note: 'OFZ 26228, fixed, 2030' },
  { ticker: 'SU26218RMFS6', quantity: 10, note: 'OFZ 26218, fixed, 2031' },
  { ticker: 'SU26235RMFS0', quantity: 10, note: 'OFZ 26235, fixed, 2031' },
  { ticker: 'SU26221RMFS0', quantity: 10, note: 'OFZ 26221, fixed, 2033' },
  { ticker: 'SU26225RMFS1', quantity: 10, note: 'OFZ 26225, fixed, 2034' },
  { ticker: 'SU26233RMFS5', quantity: 10, note: 'OFZ 26233, fixed, 2035' },
  { ticker: 'SU26240RMFS0', quantity: 10, note: 'OFZ 26240, fixed, 2036' },
  { ticker: 'SU26230RMFS1', quantity: 10, note: 'OFZ 26230, fixed, 2039' },
  { ticker: 'SU26238RMFS4', quantity: 10, note: 'OFZ 26238, fixed, 2041' },
  { ticker: 'SU46020RMFS2', quantity: 10, note: 'OFZ 46020, amortising, 2036' },
  { ticker: 'SU29006RMFS2', quantity: 10, note: 'OFZ-PK 29006, floating coupon, 2025' },
];
export const INVEST_SAMPLE_NAME = 'Sample portfolio (13 bonds)';

/** 001 §3 risk levels: unspecified '-', low 1, moderate 2, high 3. */
export const RISK_LEVELS = [0, 1, 2, 3] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];
export const RISK_LEVEL_LABELS: Record<RiskLevel, string> = { 0: '-', 1: '1', 2: '2', 3: '3' };
export const RISK_LEVEL_NAMES: Record<RiskLevel, string> = { 0: 'unspecified', 1: 'low', 2: 'moderate', 3: 'high' };

/** 001 §3 currencies, and the screener's filter (001 §9: default all). */
export const INVEST_CURRENCIES = ['usd', 'eur', 'rub'] as const;
export type InvestCurrency = (typeof INVEST_CURRENCIES)[number];
export const INVEST_CURRENCY_FILTERS = ['all', 'rub', 'usd', 'eur'] as const;
export type InvestCurrencyFilter = (typeof INVEST_CURRENCY_FILTERS)[number];
export const INVEST_CURRENCY_LABELS: Record<InvestCurrencyFilter, string> = { all: 'All', rub: 'RUB', usd: 'USD', eur: 'EUR' };

/** Screener sorts (001 §9: default coupon_percent). Each has its natural order (desc for yields, asc for dates and names). */
export const INVEST_SORTS = ['coupon_percent', 'ytm', 'maturity', 'next_coupon', 'price', 'name', 'close_date'] as const;
export type InvestSort = (typeof INVEST_SORTS)[number];
export const INVEST_DEFAULT_SORT: InvestSort = 'coupon_percent';
export const INVEST_SORT_LABELS: Record<InvestSort, string> = {
  coupon_percent: 'Coupon percent', ytm: 'Yield to maturity', maturity: 'Maturity date', next_coupon: 'Next coupon', price: 'Price', name: 'Name', close_date: 'Maturity or offer',
};
export const INVEST_SORT_ORDER: Record<InvestSort, 'asc' | 'desc'> = {
  coupon_percent: 'desc', ytm: 'desc', maturity: 'asc', next_coupon: 'asc', price: 'asc', name: 'asc', close_date: 'asc',
};

/** The bond table's columns (001 §2 "Account screens"), in order, with the spec's labels. */
export const INVEST_BOND_COLUMNS = [
  { key: 'name', label: 'name/ticker/figi' },
  { key: 'riskLevel', label: 'risk level' },
  { key: 'year_payments', label: 'yearly payments' },
  { key: 'price', label: 'nominal/price/difference %' },
  { key: 'coupon_percent', label: 'coupon percent' },
  { key: 'updated', label: 'info/coupon update times' },
  { key: 'maturity', label: 'maturity date' },
  { key: 'next_coupon', label: 'next coupon' },
  { key: 'last_coupon', label: 'last coupon' },
  { key: 'quantity', label: 'quantity' },
] as const;

/** Routes of the area (001 §2 "Investments"). */
export const INVEST_ROUTES = {
  index: '/invest',
  account: (id: string) => `/invest/account/${encodeURIComponent(id)}`,
  accountModel: (id: string) => `/invest/account/${encodeURIComponent(id)}/model`,
  local: (Id: number) => `/invest/account_local/${Id}`,
  screener: '/invest/bounds_screener',
  close: '/invest/bound_close',
} as const;

export const INVEST_MSG = {
  notConfigured: 'The broker is not configured (INVEST_API_URL, INVEST_TOKEN): broker accounts, the catalogue and the screener are not available; local accounts still work',
  accountNotFound: 'Account not found',
  positionNotFound: 'Position not found',
  tickerOrFigi: 'ticker or figi is required',
  nameRequired: 'name is required',
  tooManyPositions: `An account holds at most ${INVEST_LOCAL_POSITIONS_MAX} positions`,
  notInCatalogue: 'Not in the bonds catalogue (yet): shown without its data',
  noPrice: 'No price yet',
  noValue: 'The portfolio has no value to spread the size over (no prices yet)',
  saveOk: 'Save ok!',
  insertOk: 'Insert ok!',
  deleteOk: 'Delete ok!',
  refreshStarted: 'Refresh started',
  refreshBusy: 'Another refresh is running (possibly on another instance)',
  /** Forecast notes. */
  floating: 'Floating coupon: future coupons not fixed yet are estimated with the last known coupon',
  amortising: 'Amortising: the nominal is repaid in parts; repayments are not in the coupon schedule',
  belowMin: `coupon_percent below ${INVEST_COUPON_MIN_PERCENT}: left out of the forecast`,
  noRate: 'No exchange rate to rubles yet: left out of the ruble sums',
  deleteAccountConfirm: 'Delete this local account with its positions? Deletion is irreversible.',
} as const;

/** The next-coupon cell's colour (001 §4): 'danger' (red) under 10 days, 'success' (green) under 30, else none. */
export function nextCouponVariant(days: number | null | undefined): 'danger' | 'success' | '' {
  if (days === null || days === undefined || days < 0) return '';
  if (days < NEXT_COUPON_RED_DAYS) return 'danger';
  if (days < NEXT_COUPON_GREEN_DAYS) return 'success';
  return '';
}

// ---------------------------------------------------------------------------------------------
// Answers

/** A broker account (001 §3 Account: id, name (remote)). */
export interface InvestAccount {
  id: string;
  name: string;
  /** The broker's type and status names without their prefix ('TINKOFF', 'OPEN'). */
  type: string;
  status: string;
  opened_date: string | null;
}

/** A local account (001 §3: Id, name), with the account id the portfolio methods take. */
export interface InvestLocalAccount {
  Id: number;
  name: string;
  /** `local:<Id>`. */
  accountId: string;
  /** The owner. */
  uid: number;
  owner: string;
  /** Positions in it. */
  count: number;
  time_update: string | null;
}

/** A position of a local account as entered (ticker or figi, quantity, price), and what the catalogue made of it. */
export interface InvestLocalPosition {
  Id: number;
  Id_account: number;
  ticker: string;
  figi: string;
  quantity: number;
  /** Entered price, % of nominal (as bonds are quoted); null when not given. */
  price: number | null;
  /** Found in the bonds catalogue. */
  resolved: boolean;
  name: string;
  time_update: string | null;
}

export interface InvestLocalAccountDetail extends InvestLocalAccount {
  positions: InvestLocalPosition[];
}

/** One coupon of GetBondCoupons (001 §3 coupons: fix_date, value, number, currency). */
export interface InvestCoupon {
  number: number;
  /** Payment day. */
  date: string;
  /** The day the coupon's value was (or will be) fixed; null when the broker gives none. */
  fix_date: string | null;
  /** Per bond, in `currency`; 0 for a future floating coupon not fixed yet. */
  value: number;
  currency: string;
  /** CONSTANT, FLOATING, DISCOUNT, MORTGAGE, FIX, VARIABLE, OTHER or UNSPECIFIED. */
  type: string;
  /** Days in the coupon period. */
  period: number | null;
  start_date: string | null;
}

export interface InvestCouponRef {
  date: string;
  /** Per bond, in the bond's currency. */
  value: number;
  number: number;
  fix_date: string | null;
  /** Days from today (negative for the last coupon). */
  days: number;
  /** The value is not fixed yet: estimated with the last known coupon (floating). */
  estimated: boolean;
}

/** 001 §3 Bond, as the screens use it. */
export interface InvestBond {
  figi: string;
  ticker: string;
  isin: string;
  class_code: string;
  name: string;
  /** 001 §3 Bond.data. */
  data: {
    name: string;
    riskLevel: RiskLevel;
    maturityDate: string | null;
    amortizationFlag: boolean;
    floatingCouponFlag: boolean;
    forQualInvestorFlag: boolean;
    perpetualFlag: boolean;
    /** The offer (call) date, when the bond has one. */
    callDate: string | null;
  };
  /** 001 §3 Bond.info_dop: not in the broker's API (EXTERNAL-APIS.md): null unless known; liquidity out of 100. */
  info_dop: { liquidity: number | null; creditRatingText: string | null; expert: string | null };
  /** The broker's liquidity flag (its only liquidity figure). */
  liquidity_flag: boolean;
  riskLevel: RiskLevel;
  /** 'usd' | 'eur' | 'rub' | another ISO code in lower case. */
  currency: string;
  nominal: number | null;
  /** Points = % of nominal. */
  lastPrice: number | null;
  /** Money per bond (lastPrice / 100 x nominal). */
  price: number | null;
  /** lastPrice - 100. */
  diff_percent: number | null;
  /** Accrued coupon interest per bond today (from the coupon schedule, else the catalogue's aciValue). */
  aci: number | null;
  /** Coupon value x coupons a year / nominal x 100 (2 places). */
  coupon_percent: number | null;
  coupon_in_year: number;
  /** Yield to maturity, % a year (effective; docs/invest.md "Yield to maturity"); null without price, maturity or schedule. */
  ytm: number | null;
  /** The yield is approximate: floating coupons estimated, or amortising (repayments not in the schedule). */
  ytm_approx: boolean;
  /** When the catalogue data, the coupons and the price were last refreshed (epoch ms). */
  ts_update_info: number | null;
  ts_update_coupon: number | null;
  ts_update_price: number | null;
  ts_next_coupon_pay: number | null;
  ts_last_coupon: number | null;
  next_coupon: InvestCouponRef | null;
  last_coupon: InvestCouponRef | null;
  /** Days to maturity (null: none or unknown). */
  maturity_days: number | null;
  /** Coupons paid in the next 365 days: how many, per bond and for the position (bond currency). */
  year_payments: { count: number; per_bond: number; total: number | null };
  /** The position of an account; null in the screener. 001 §3 position.quantity. */
  position: InvestPosition | null;
  /** Found in the bonds catalogue (false: a position whose bond the catalogue does not hold). */
  known: boolean;
  /** The schedule of GetBondCoupons, by number (answered when asked: joinCoupon). */
  coupons?: InvestCoupon[];
  /** getBondsNextClose: the nearer of maturity and offer, and which it is. */
  close_date?: string | null;
  close_kind?: 'maturity' | 'offer' | null;
}

export interface InvestPosition {
  quantity: number;
  /** Average purchase price, % of nominal (a local position's entered price). */
  avg_price: number | null;
  /** Market value of the position in the bond's currency (price x quantity) and in rubles. */
  value: number | null;
  value_rub: number | null;
  /** Accrued interest of the position as the broker counts it (broker accounts). */
  nkd: number | null;
}

export interface InvestTotals {
  bonds: number;
  quantity: number;
  /** Market value in rubles (bonds in other currencies at the broker's rate); null parts counted in `missing`. */
  value_rub: number;
  /** Coupons of the next 365 days in rubles. */
  year_payments_rub: number;
  /** Bonds left out of the ruble sums (no price or no rate). */
  missing: number;
}

/** invest.User.getPortfolio: one account's bonds (broker, local or the sample). */
export interface InvestPortfolio {
  configured: true;
  accountId: string;
  kind: 'broker' | 'local' | 'sample';
  name: string;
  bonds: InvestBond[];
  totals: InvestTotals;
  /** When the broker's portfolio was read (ISO), and whether that answer is past its 600 s (a refresh failed: `error`). */
  fetched: string | null;
  stale: boolean;
  error?: string;
  /** Partial failures and remarks (a coupon schedule that could not be read, positions not in the catalogue). */
  notes: string[];
  /** Other positions the broker account holds that are not bonds (count by instrument type). */
  other_positions?: Record<string, number>;
}

export interface InvestForecastMonth {
  /** 'YYYY-MM'. */
  month: string;
  /** Rubles, 2 places. */
  sum: number;
  /** Coupon payments in the month. */
  count: number;
}

export interface InvestForecastYear {
  year: number;
  sum: number;
  months: InvestForecastMonth[];
}

export interface InvestForecastBond {
  figi: string;
  ticker: string;
  name: string;
  currency: string;
  /** The quantity the forecast used (scaled when a size was given) and the one held. */
  quantity: number;
  held: number;
  coupon_percent: number | null;
  floating: boolean;
  amortization: boolean;
  /** In the sums. */
  included: boolean;
  /** Why not (or a remark): INVEST_MSG.belowMin, noRate, ... */
  reason?: string;
  /** Its coupons in the forecast, rubles. */
  sum: number;
  /** Some of its coupons are estimated (floating, not fixed yet). */
  estimated: boolean;
}

/** invest.Item.getForecast. */
export interface InvestForecast {
  configured: true;
  accountId: string;
  name: string;
  /** The size asked for (rubles), null: the quantities held. */
  size: number | null;
  /** The portfolio's market value in rubles now, and the factor quantities were scaled by (size / value). */
  value_rub: number;
  scale: number | null;
  /** The first year counted (the current one: earlier years are skipped, 001 §5). */
  from_year: number;
  years: InvestForecastYear[];
  /** Every month of `years`, in order. */
  months: InvestForecastMonth[];
  total: number;
  bonds: InvestForecastBond[];
  notes: string[];
}

export interface InvestCalendarEvent {
  date: string;
  kind: 'coupon' | 'maturity' | 'offer';
  figi: string;
  ticker: string;
  name: string;
  /** Coupon number (coupons). */
  number: number | null;
  /** Per bond, in `currency` (the coupon, or the nominal repaid at maturity; 0 for an offer). */
  per_bond: number;
  currency: string;
  quantity: number;
  amount: number;
  /** In rubles; null without a rate. */
  amount_rub: number | null;
  fix_date: string | null;
  floating: boolean;
  amortization: boolean;
  estimated: boolean;
}

export interface InvestCalendarMonth {
  month: string;
  /** Rubles. */
  coupons: number;
  maturities: number;
  total: number;
  events: InvestCalendarEvent[];
}

/** invest.Item.getCalendar: every coupon and maturity of the account's bonds, month by month. */
export interface InvestCalendar {
  configured: true;
  accountId: string;
  name: string;
  from: string;
  to: string;
  months: InvestCalendarMonth[];
  totals: { coupons: number; maturities: number; total: number };
  notes: string[];
}

/** invest.Item.getBondsFilter / getBondsNextClose: one page of the catalogue. */
export interface InvestBondsPage {
  configured: true;
  list: InvestBond[];
  count: number;
  page: number;
  limit: number;
  sort: InvestSort;
  order: 'asc' | 'desc';
  /** When the catalogue was last refreshed (epoch ms; null: never). */
  ts_catalogue: number | null;
  /** getBondsNextClose: the window in days. */
  days?: number;
}

/** invest.getStatus: whether the broker is configured and how fresh the data is. */
export interface InvestStatus {
  configured: boolean;
  /** INVEST_API_URL (no credentials in it); the token only as set / not set. */
  api_url: string;
  token: 'set' | 'not set';
  catalogue: { bonds: number; ts_update: number | null };
  coupons: { bonds: number; ts_update: number | null };
  prices: { ts_update: number | null };
  rates: Array<{ currency: string; rate: number; ts: number }>;
  /** The refresh job's last run and failure (null: never ran). */
  job: { last_run: string | null; last_error: string | null };
  limits_per_minute: Record<string, number>;
}

/** `invest.update` (socket): refreshed prices and coupon schedules, to the investment pages that follow them. */
export interface InvestUpdateEvent {
  /** The subscription it is for (the ack of `invest.subscribe`). */
  sid: string;
  prices: Array<{ figi: string; lastPrice: number | null; price: number | null; diff_percent: number | null; ytm: number | null; coupon_percent: number | null; ts_update_price: number | null }>;
  /** Bonds whose coupon schedule (or catalogue data) changed: re-read them. */
  coupons: string[];
  at: number;
}

/** `invest.subscribe` ack. */
export interface InvestSubscribeAnswer {
  sid: string;
}

// ---------------------------------------------------------------------------------------------
// Input

/** An account id: a broker account id, `local:<Id>` or `sample`. */
export const accountIdField = (label = 'accountId') =>
  text(label, 64, { min: 1 }).refine((v) => /^[A-Za-z0-9:_-]+$/.test(v), `${label} must be an account id (a broker account id, local:<Id> or ${INVEST_SAMPLE_ACCOUNT})`);

/** One of `values`, or 'all' (the default of a filter): '<label> must be one of all, 0, 1, 2, 3'. */
export function choiceOrAll<T extends number>(values: readonly T[], label: string) {
  const bad = `${label} must be one of all, ${values.join(', ')}`;
  const s = z
    .union([z.number(), z.string()], { error: (iss) => (iss.input === undefined ? `${label} is required` : bad) })
    .transform((v, ctx): T | 'all' => {
      if (v === 'all' || v === '') return 'all';
      const n = typeof v === 'number' ? v : /^\d{1,3}$/.test(v) ? Number(v) : NaN;
      if ((values as readonly number[]).includes(n)) return n as T;
      ctx.addIssue({ code: 'custom', message: bad, input: v });
      return z.NEVER;
    });
  fieldKinds.add(s, { kind: 'choice', label });
  return s;
}

/** One of the listed words. */
const word = <T extends string>(values: readonly T[], label: string) =>
  z.enum(values as unknown as [T, ...T[]], { error: () => `${label} must be one of ${values.join(', ')}` });

/** A positive decimal with at most 9 places (a Quotation's precision): '12', '12.5', 12.5. */
export function decimalText(label: string, opts: { min?: 'positive' | 'zero'; maxIntDigits?: number } = {}) {
  const intDigits = opts.maxIntDigits ?? 12;
  const re = new RegExp(`^\\d{1,${intDigits}}(?:\\.\\d{1,9})?$`);
  return z
    .union([z.number(), z.string()], { error: (iss) => (iss.input === undefined ? `${label} is required` : `${label} must be a number`) })
    .transform((v, ctx): string => {
      const s = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : v.trim().replace(',', '.');
      if (!re.test(s)) {
        ctx.addIssue({ code: 'custom', message: `${label} must be a number (at most ${intDigits} digits before the point and 9 after)`, input: v });
        return z.NEVER;
      }
      const zero = /^0+(?:\.0+)?$/.test(s);
      if (zero && opts.min !== 'zero') {
        ctx.addIssue({ code: 'custom', message: `${label} must be more than 0`, input: v });
        return z.NEVER;
      }
      return s;
    });
}

export const InvestAccountArgs = z.object({ accountId: accountIdField() });
export const InvestPortfolioArgs = z.object({ accountId: accountIdField(), joinCoupon: flag('joinCoupon').optional() });
export type InvestPortfolioArgs = z.output<typeof InvestPortfolioArgs>;

export const InvestForecastArgs = z.object({
  accountId: accountIdField(),
  /** Rubles to spread as the account is (001 §9 default in the UI: 30,000,000); absent: the quantities held. */
  size: int(1, INT_MAX, 'size').optional(),
});
export type InvestForecastArgs = z.output<typeof InvestForecastArgs>;

const MONTH_RE = /^(\d{4})-(0[1-9]|1[0-2])$/;
const month = (label: string) => text(label, 7, { min: 1 }).refine((v) => MONTH_RE.test(v) && Number(v.slice(0, 4)) >= 1900 && Number(v.slice(0, 4)) <= 2999, `${label} must be a month written YYYY-MM`);

export const InvestCalendarArgs = z.object({
  accountId: accountIdField(),
  /** First month (default: January of the current year). */
  from: month('from').optional(),
  /** Last month (default: the month of the last payment). */
  to: month('to').optional(),
  size: int(1, INT_MAX, 'size').optional(),
});
export type InvestCalendarArgs = z.output<typeof InvestCalendarArgs>;

/** GET /api/invest/calendar.ics: the coming payments of an account as iCalendar. */
export const InvestIcsArgs = z.object({ accountId: accountIdField(), size: int(1, INT_MAX, 'size').optional() });

const screenerShape = {
  sort: word(INVEST_SORTS, 'sort').optional(),
  order: word(['asc', 'desc'] as const, 'order').optional(),
  riskLevel: choiceOrAll(RISK_LEVELS, 'riskLevel').optional(),
  currency: word(INVEST_CURRENCY_FILTERS, 'currency').optional(),
  p_: int(1, 100_000, 'p_').optional(),
  limit: int(1, INVEST_SCREENER_LIMIT_MAX, 'limit').optional(),
};
export const InvestBondsFilterArgs = z.object(screenerShape);
export type InvestBondsFilterArgs = z.output<typeof InvestBondsFilterArgs>;
export const InvestNextCloseArgs = z.object({ ...screenerShape, days: int(1, INVEST_NEXT_CLOSE_MAX_DAYS, 'days').optional() });
export type InvestNextCloseArgs = z.output<typeof InvestNextCloseArgs>;

/** 001 §7 getBonds (ticker list, limit, isDisting, joinCoupon). */
export const InvestGetBondsArgs = z.object({
  ticker: z
    .union([z.string(), z.array(z.string())], { error: () => 'ticker must be a comma list of tickers or a list of them' })
    .transform((v, ctx): string[] => {
      const list = (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim().toUpperCase()).filter(Boolean);
      if (list.some((t) => !/^[A-Z0-9._-]{1,32}$/.test(t))) ctx.addIssue({ code: 'custom', message: 'ticker: each ticker is 1-32 letters, digits, . _ -', input: v });
      if (list.length > INVEST_GET_BONDS_MAX) ctx.addIssue({ code: 'custom', message: `ticker: at most ${INVEST_GET_BONDS_MAX} tickers`, input: v });
      return list;
    })
    .optional(),
  limit: int(1, INVEST_GET_BONDS_MAX, 'limit').optional(),
  /** One row per ticker (the spec's isDisting). */
  isDisting: flag('isDisting').optional(),
  joinCoupon: flag('joinCoupon').optional(),
});
export type InvestGetBondsArgs = z.output<typeof InvestGetBondsArgs>;

export const InvestLocalId = z.object({ Id: id('Id') });
export const InvestLocalSave = z.object({ Id: optionalId('Id'), name: text('name', INVEST_LOCAL_NAME_MAX, { min: 1 }) });
export type InvestLocalSave = z.output<typeof InvestLocalSave>;

const tickerField = text('ticker', 32).refine((v) => v === '' || /^[A-Za-z0-9._-]+$/.test(v), 'ticker must be letters, digits, . _ -').transform((v) => v.toUpperCase());
const figiField = text('figi', 32).refine((v) => v === '' || /^[A-Za-z0-9]+$/.test(v), 'figi must be letters and digits').transform((v) => v.toUpperCase());

export const InvestPositionSave = z
  .object({
    Id: optionalId('Id'),
    Id_account: id('Id_account'),
    ticker: tickerField.optional(),
    figi: figiField.optional(),
    quantity: decimalText('quantity'),
    /** % of nominal (as quoted); optional. */
    price: decimalText('price', { min: 'zero', maxIntDigits: 6 }).optional(),
  })
  .superRefine((v, ctx) => {
    if (!v.ticker && !v.figi) ctx.addIssue({ code: 'custom', path: ['ticker'], message: INVEST_MSG.tickerOrFigi });
  });
export type InvestPositionSave = z.output<typeof InvestPositionSave>;

/** `invest.subscribe`: the bonds a page shows (their figis), or every bond (`all`: the screener). */
export const InvestSubscribeArgs = z.object({
  figis: z.array(figiField, { error: () => 'figis must be a list of figis' }).max(INVEST_LIVE_FIGIS_MAX, `figis has at most ${INVEST_LIVE_FIGIS_MAX} items`).optional(),
  all: flag('all').optional(),
});
export type InvestSubscribeArgs = z.output<typeof InvestSubscribeArgs>;
export const InvestUnsubscribeArgs = z.object({ sid: text('sid', 64, { min: 1 }) });
