/**
 * The Yandex partner (ad network, RSYA) statistics API's answer (EXTERNAL-APIS.md "Yandex Partner (ad
 * network) statistics API": assembled from public clients that cite the statistics2 documentation):
 * `GET /api/statistics2/get.json?lang=ru&period=&period=&field=partner_wo_nds&dimension_field=date|day`
 * -> `{result: "ok", data: {points: [{dimensions: {date: ["YYYY-MM-DD"]}, measures: [{partner_wo_nds}]}],
 * periods: [[from, to]], totals: {...}}}`; errors `{errors: [...]}` (or `result` other than "ok").
 */
import { z } from 'zod';

/** Amounts come as numbers or decimal strings. */
const amount = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a decimal number'), z.null()]).transform((v) => (v === null ? 0 : Number(v)));

export const RsyaStatWire = z.object({
  result: z.literal('ok', { error: "result must be 'ok'" }),
  data: z.object({
    points: z.array(z.object({
      dimensions: z.object({ date: z.array(z.string().regex(/^\d{4}-\d{2}-\d{2}/, 'must be a date')).min(1) }).passthrough(),
      measures: z.array(z.object({ partner_wo_nds: amount.optional() }).passthrough()),
    }).passthrough()),
    periods: z.array(z.array(z.string())).optional(),
    totals: z.unknown().optional(),
  }).passthrough(),
}).passthrough();
export type RsyaStat = z.output<typeof RsyaStatWire>;

export const RsyaErrorWire = z.object({
  result: z.string().optional(),
  errors: z.array(z.union([z.string(), z.object({ id: z.unknown().optional(), message: z.string().optional(), msg: z.string().optional(), description: z.string().optional() }).passthrough()])).optional(),
  message: z.string().optional(),
}).passthrough();

/** The partner_wo_nds of each day (days summed when the answer splits one), by date. */
export function pointsOf(s: RsyaStat): Array<{ date: string; value: number }> {
  const by = new Map<string, number>();
  for (const p of s.data.points) {
    const date = p.dimensions.date[0].slice(0, 10);
    const v = p.measures.reduce((sum, m) => sum + (m.partner_wo_nds ?? 0), 0);
    by.set(date, (by.get(date) ?? 0) + v);
  }
  return [...by.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([date, value]) => ({ date, value: Math.round(value * 100) / 100 }));
}
