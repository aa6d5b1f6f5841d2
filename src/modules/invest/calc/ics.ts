/**
 * The coming payments of an account as iCalendar (RFC 5545; docs/invest.md "Calendar export"): one
 * all-day VEVENT per coupon and maturity from today on, with a stable UID (account, bond, kind,
 * coupon number or day) so a calendar that imports the file again updates the events instead of
 * doubling them. Lines are CRLF-terminated and folded at 75 octets; text is escaped.
 */
import type { InvestCalendar } from '../../../contracts/invest.js';

const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r?\n/g, '\\n');

/** Folds a content line at 75 octets (continuation lines start with a space), never inside a UTF-8 sequence. */
export function foldLine(line: string): string {
  const out: string[] = [];
  let cur = '';
  let bytes = 0;
  for (const ch of line) {
    const n = Buffer.byteLength(ch);
    const limit = out.length === 0 ? 75 : 74;
    if (bytes + n > limit) {
      out.push(cur);
      cur = '';
      bytes = 0;
    }
    cur += ch;
    bytes += n;
  }
  out.push(cur);
  return out.join('\r\n ');
}

const money = (n: number) => n.toFixed(2);
const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

export function toIcs(cal: InvestCalendar, today: string, now = new Date(), host = 'ops-console'): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//ops-console//invest//EN', 'CALSCALE:GREGORIAN', 'METHOD:PUBLISH', `X-WR-CALNAME:${esc(`Bond payments: ${cal.name}`)}`];
  for (const m of cal.months) {
    for (const e of m.events) {
      if (e.kind === 'offer' || e.date < today) continue;
      const day = e.date.replace(/-/g, '');
      const next = new Date(Date.UTC(Number(e.date.slice(0, 4)), Number(e.date.slice(5, 7)) - 1, Number(e.date.slice(8, 10)) + 1)).toISOString().slice(0, 10).replace(/-/g, '');
      const cur = e.currency.toUpperCase();
      const what = e.kind === 'coupon' ? `Coupon${e.number ? ` #${e.number}` : ''}` : 'Maturity';
      const summary = `${what} ${e.ticker}: ${money(e.amount)} ${cur}${e.estimated ? ' (estimated)' : ''}`;
      const desc = [
        `${e.name} (${e.ticker}, ${e.figi})`,
        `${money(e.per_bond)} ${cur} per bond x ${e.quantity}`,
        e.amount_rub !== null && cur !== 'RUB' ? `${money(e.amount_rub)} RUB` : '',
        e.fix_date ? `Fixed on ${e.fix_date}` : '',
        e.estimated ? 'Not fixed yet: estimated with the last known coupon' : '',
      ].filter(Boolean).join('\n');
      const uid = `${cal.accountId}-${e.figi}-${e.kind}-${e.number ?? day}@${host}`.replace(/[^A-Za-z0-9@._:-]/g, '_');
      lines.push('BEGIN:VEVENT', `UID:${uid}`, `DTSTAMP:${stamp(now)}`, `DTSTART;VALUE=DATE:${day}`, `DTEND;VALUE=DATE:${next}`, `SUMMARY:${esc(summary)}`, `DESCRIPTION:${esc(desc)}`, 'TRANSP:TRANSPARENT', 'END:VEVENT');
    }
  }
  lines.push('END:VCALENDAR');
  return lines.map(foldLine).join('\r\n') + '\r\n';
}
