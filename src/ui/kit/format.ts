const pad = (n: number) => String(n).padStart(2, '0');

/** 'YYYY-MM-DD HH:mm:ss' in local time; '' for empty, the input itself when not a date. */
export function fmtDateTime(v: string | number | Date | null | undefined): string {
  if (v === null || v === undefined || v === '') return '';
  const d = v instanceof Date ? v : new Date(v);
  if (Number.isNaN(d.getTime())) return String(v);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Numbers with 0 or 1 decimals and a comma thousands separator (001 §9). */
export function fmtNumber(v: number | null | undefined, decimals: 0 | 1 = 0): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '-';
  return v.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** Bytes as kb, or mb above 1024 kb (001 §9); 000 §9 log files write the unit 'MB' (`mbUnit`). */
export function fmtSize(bytes: number, mbUnit: 'mb' | 'MB' = 'mb'): string {
  const kb = bytes / 1024;
  return kb > 1024 ? `${(kb / 1024).toFixed(1)} ${mbUnit}` : `${kb.toFixed(kb < 10 ? 1 : 0)} kb`;
}

/** A count with its noun in the right number: `plural(1, 'row')` -> '1 row', `plural(3, 'row')` -> '3 rows'. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
