/**
 * The one masking of secrets, shared by the audit log (summarizeArgs, messages) and the JSON logger
 * (src/core/logger.ts): fields whose name looks secret are replaced by '***', and every string goes
 * through maskSecretText (src/contracts/secrets.ts): the credentials of any URL-looking text
 * (`scheme://user:pass@host` -> `scheme://user:***@host`, `scheme://***@host` when there is only a
 * user part, which often is a token), secret query parameters (`?token=***`) and secret `name=value`
 * pairs (`arg=password=***`). The user part of a URL and the secret names are read by the same
 * functions the cron cmd splitter uses (src/contracts/cron.ts), so what a cron task seals is always
 * masked here too.
 */
import { maskSecretText, maskUrlCredentials, SECRET_MASK, SECRET_NAME } from '../../contracts/secrets.js';

export { maskSecretText, maskUrlCredentials };

/** Field names treated as secrets: the one list of src/contracts/secrets.ts (*pass*, *secret*, *token*, *hash*, *private*, *credential*, auth, ending in key, ...). */
export const SECRET_KEY = SECRET_NAME;

export const MASK = SECRET_MASK;
/** Characters past `maxString` still read when masking a long string (a secret starting in the kept part ends within them). */
const MASK_MARGIN = 4096;

export interface MaskOptions {
  /** Longer strings are cut to this many characters (with '…'). */
  maxString?: number;
  /** Longer arrays keep this many items. */
  maxItems?: number;
  /** Deeper values become '…'. */
  maxDepth?: number;
}

/** A copy of `value` with every secret-looking field masked and every string through maskSecretText. */
export function maskSecrets(value: unknown, opts: MaskOptions = {}): unknown {
  const { maxString = Infinity, maxItems = Infinity, maxDepth = 8 } = opts;
  const seen = new WeakSet<object>();
  const mask = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') {
      // Masked on a bounded head (what is kept, and room for a secret that starts in it to end): a
      // multi-megabyte value (an uploaded image as base64) would otherwise cost maskSecretText minutes.
      const s = maskSecretText(v.length > maxString + MASK_MARGIN ? v.slice(0, maxString + MASK_MARGIN) : v);
      return s.length > maxString || v.length > maxString + MASK_MARGIN ? s.slice(0, maxString) + '…' : s;
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
