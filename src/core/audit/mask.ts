/**
 * The one masking of secrets, shared by the audit log (summarizeArgs) and the JSON logger
 * (src/core/logger.ts): fields whose name looks secret are replaced by '***', and the credentials of
 * any URL-looking text (`scheme://user:pass@host`) are masked to `scheme://user:***@host`
 * (`scheme://***@host` when there is only a user part, which often is a token).
 */

/** Field names treated as secrets: any *pass*, *secret*, *token*, *hash*, *private*, *credential*, or ending in key/key_data. */
export const SECRET_KEY = /pass|secret|token|hash|private|credential|key(_?data)?$/i;

export const MASK = '***';

/**
 * `scheme://` then the user part up to the last '@' before the host. The user part stops at what
 * cannot be inside a URL's authority or around it in text (white space, / ? #, quotes, angle
 * brackets, '|' which separates the parts of a cron cmd), so a password holding a raw '@' is
 * masked whole.
 */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#|"'<>`]*)@/gi;

/** `http://user:pass@host/x` -> `http://user:***@host/x`; `https://token@host` -> `https://***@host`. */
export function maskUrlCredentials(text: string): string {
  if (!text.includes('@')) return text;
  return text.replace(URL_USERINFO, (_all, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return `${scheme}${colon >= 0 ? `${userinfo.slice(0, colon)}:${MASK}` : MASK}@`;
  });
}

export interface MaskOptions {
  /** Longer strings are cut to this many characters (with '…'). */
  maxString?: number;
  /** Longer arrays keep this many items. */
  maxItems?: number;
  /** Deeper values become '…'. */
  maxDepth?: number;
}

/** A copy of `value` with every secret-looking field masked and URL credentials masked in every string. */
export function maskSecrets(value: unknown, opts: MaskOptions = {}): unknown {
  const { maxString = Infinity, maxItems = Infinity, maxDepth = 8 } = opts;
  const seen = new WeakSet<object>();
  const mask = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') {
      const s = maskUrlCredentials(v);
      return s.length > maxString ? s.slice(0, maxString) + '…' : s;
    }
    if (!v || typeof v !== 'object') return v;
    if (depth > maxDepth) return '…';
    if (seen.has(v)) return '[circular]';
    seen.add(v);
    if (Array.isArray(v)) return v.slice(0, maxItems).map((x) => mask(x, depth + 1));
    if (v instanceof Date) return v;
    if (v instanceof Error) return { type: v.name, message: mask(v.message, depth + 1), ...(v.stack ? { stack: mask(v.stack, depth + 1) } : {}) };
    if (Buffer.isBuffer(v)) return `[${v.length} bytes]`;
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, SECRET_KEY.test(k) && x !== null && x !== undefined && x !== '' ? MASK : mask(x, depth + 1)]),
    );
  };
  return mask(value, 0);
}
