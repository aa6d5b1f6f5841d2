/**
 * The one set of input field schemas every area uses (server and UI forms alike), so that an id, a
 * number, a switch, a name, an address or a host is accepted and refused the same way everywhere and
 * the areas to come get it by importing from here.
 *
 * Numbers: a JSON number, or a string of decimal digits (forms send strings), with a leading '-' only
 * where the range allows negatives. Everything else is refused with a 422 naming the field: `true`,
 * `null`, `[5]`, `{}`, `"0x17"`, `"1e1"`, `" 5"`, `""`, `1.5`. (`z.coerce.number()` must not be used for
 * input: it reads `true` as 1, `[5]` as 5, `"0x17"` as 23 and `null` as 0.)
 *
 * Switches (`flag`): 0, 1, '0', '1', true, false, for every switch of every method (a `z.boolean()` or
 * an `int(0, 1)` of its own would refuse some of them: `adHocSwitchesOf` finds those). Choices: one of
 * the listed numbers. Text: a string (never a number, array or object), trimmed, without control or
 * zero-width/format characters.
 *
 * Each numeric schema made here is recorded in `fieldKinds` with its kind, so tools (the bad-input test
 * of every RPC method, docs) can find the numeric fields of any input schema by walking it.
 */
import { z } from 'zod';

/** `idList`: a comma list of ids or a list of them (entries trimmed, empty ones dropped: `[]` and ' 5' are valid). */
export type FieldKind = 'id' | 'optionalId' | 'int' | 'flag' | 'choice' | 'idList';
export interface FieldMeta {
  kind: FieldKind;
  label: string;
  /** `oneOrMany`: a list of such values is accepted too. */
  list?: boolean;
  /** `int`: its range. */
  min?: number;
  max?: number;
}
/** Every numeric field schema made by this module, with its kind (see `numericFieldsOf`). */
export const fieldKinds = z.registry<FieldMeta>();

/** The largest id / integer column value (a signed 32-bit INT on both databases). */
export const INT_MAX = 2_147_483_647;

const DIGITS = /^\d+$/;
const SIGNED_DIGITS = /^-?\d+$/;

const numberError = (label: string) => (iss: { input?: unknown }) =>
  iss.input === undefined ? `${label} is required` : `${label} must be a number`;

/**
 * A whole number in [min, max]: a JSON number or a string of decimal digits ('-' only when min < 0).
 * Messages name the field: '<label> must be a number', '... a whole number', '... is at least <min>'.
 */
export function int(min: number, max: number, label: string) {
  const signed = min < 0;
  const s = z
    .union([z.number(), z.string()], { error: numberError(label) })
    .transform((v, ctx): number => {
      let n: number;
      if (typeof v === 'number') n = v;
      else if ((signed ? SIGNED_DIGITS : DIGITS).test(v) && v.length <= 20) n = Number(v);
      else {
        ctx.addIssue({ code: 'custom', message: `${label} must be a number${signed ? '' : ' (digits only)'}`, input: v });
        return z.NEVER;
      }
      if (!Number.isSafeInteger(n)) {
        ctx.addIssue({ code: 'custom', message: `${label} must be a whole number`, input: v });
        return z.NEVER;
      }
      if (n < min) ctx.addIssue({ code: 'custom', message: min === 1 && max === INT_MAX ? `${label} must be positive` : `${label} is at least ${min}`, input: v });
      else if (n > max) ctx.addIssue({ code: 'custom', message: `${label} is at most ${max}`, input: v });
      return n === 0 ? 0 : n; // never -0
    });
  fieldKinds.add(s, { kind: 'int', label, min, max });
  return s;
}

/** A row id: a whole number from 1 to INT_MAX ('Id must be a number', 'Id must be positive'). */
export function id(label = 'Id') {
  const s = int(1, INT_MAX, label);
  fieldKinds.add(s, { kind: 'id', label });
  return s;
}

/**
 * An id a form may leave empty: '' , 0 and '0' mean none (undefined); otherwise an `id`. `null` and
 * every other shape are refused like any id.
 */
export function optionalId(label = 'Id') {
  const inner = id(label);
  const s = z
    .union([z.number(), z.string()], { error: numberError(label) })
    .transform((v, ctx): number | undefined => {
      if (v === '' || v === 0 || v === '0') return undefined;
      const r = inner.safeParse(v);
      if (r.success) return r.data;
      for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, input: v });
      return z.NEVER;
    })
    .optional();
  fieldKinds.add(s, { kind: 'optionalId', label });
  return s;
}

/** A switch: 0, 1, '0', '1', true or false, as 0 | 1. Anything else: '<label> must be 0 or 1'. */
export function flag(label: string) {
  const s = z
    .union([z.literal(0), z.literal(1), z.literal('0'), z.literal('1'), z.boolean()], {
      error: (iss) => (iss.input === undefined ? `${label} is required` : `${label} must be 0 or 1`),
    })
    .transform((v): 0 | 1 => (v === true || v === 1 || v === '1' ? 1 : 0));
  fieldKinds.add(s, { kind: 'flag', label });
  return s;
}

/** One of the listed numbers (as a number or its digits): '<label> must be one of a, b, c'. */
export function choice<T extends number>(values: readonly T[], label: string) {
  const s = int(Math.min(0, ...values), INT_MAX, label)
    .refine((v) => (values as readonly number[]).includes(v), `${label} must be one of ${values.join(', ')}`)
    .transform((v) => v as T);
  fieldKinds.add(s, { kind: 'choice', label });
  return s;
}

/**
 * One number, or a non-empty list of them (a filter such as `{type: 8}` or `{type: [8, 9]}`), each
 * checked by `item` (a numeric field of this module); a bad item is named by its position (`type.1`).
 */
export function oneOrMany<T extends z.ZodType<number, number | string>>(item: T, label: string, maxItems = 100) {
  const list = z.array(item).min(1, `${label} must not be an empty list`).max(maxItems, `${label} has at most ${maxItems} items`);
  const s = z
    .union([z.number(), z.string(), z.array(z.unknown())], {
      error: (iss) => (iss.input === undefined ? `${label} is required` : `${label} must be a number or a list of numbers`),
    })
    .transform((v, ctx): z.output<T> | z.output<T>[] => {
      const r = Array.isArray(v) ? list.safeParse(v) : item.safeParse(v);
      if (r.success) return r.data as z.output<T> | z.output<T>[];
      for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as (string | number)[], input: v });
      return z.NEVER;
    });
  const meta = fieldKinds.get(item);
  fieldKinds.add(s, { kind: meta?.kind ?? 'int', label, list: true });
  return s;
}

// ---------------------------------------------------------------------------------------------
// Text

/** Control characters (C0, DEL, C1), format characters (zero-width space/joiners, bidi controls, BOM, soft hyphen) and line/paragraph separators. */
const UNSAFE_CHARS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
/** The same, but tab, line feed and carriage return allowed (multi-line values). */
const UNSAFE_CHARS_MULTILINE = /(?![\t\n\r])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** The first character of `s` that has no place in a name (or in a multi-line value), else null. */
export function unsafeCharOf(s: string, multiline = false): string | null {
  const m = (multiline ? UNSAFE_CHARS_MULTILINE : UNSAFE_CHARS).exec(s);
  return m ? m[0] : null;
}
const charName = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

export interface TextOptions {
  /** Fewest characters after trimming; 1 makes the field required ('<label> is required'). Default 0. */
  min?: number;
  /** Keep tab and line breaks (multi-line values); other control characters are still refused. */
  multiline?: boolean;
  /** Trim surrounding white space (default true; false keeps the value as written). */
  trim?: boolean;
}

/**
 * A string of at most `max` characters without control or zero-width characters; numbers, arrays,
 * objects and null are refused ('<label> must be text').
 */
export function text(label: string, max: number, opts: TextOptions = {}) {
  const { min = 0, multiline = false, trim = true } = opts;
  let s = z.string({ error: (iss) => (iss.input === undefined ? `${label} is required` : `${label} must be text`) });
  if (trim) s = s.trim();
  if (min > 0) s = s.min(min, min === 1 ? `${label} is required` : `${label} is at least ${min} characters`);
  return s
    .max(max, `${label} is at most ${max} characters`)
    .refine((v) => unsafeCharOf(v, multiline) === null, {
      error: (iss) => `${label} must not contain control or invisible characters (${charName(unsafeCharOf(String(iss.input), multiline) ?? ' ')})`,
    });
}

/** A required name: text of 1..max characters, trimmed, without control or zero-width characters. */
export const name = (label: string, max: number) => text(label, max, { min: 1 });

/**
 * What a save method needs when it creates (no `idKey` given) and not when it changes a row, as a
 * refinement of its input object (`.superRefine(requiredOnCreate('Id', {name: 'Name is required'}))`):
 * each field missing or empty is named with its message. A method's input schema is its whole input
 * contract: a cron task's action arguments are checked with it at save, and `cron.getActions` lists
 * what it refuses `{}` for as the arguments the action needs.
 */
export function requiredOnCreate(idKey: string, required: Record<string, string>) {
  return (v: object, ctx: z.RefinementCtx) => {
    const o = v as Record<string, unknown>;
    if (o[idKey] !== undefined) return;
    for (const [k, message] of Object.entries(required) as [string, string][]) {
      if (o[k] === undefined || o[k] === null || o[k] === '') ctx.addIssue({ code: 'custom', path: [k], message });
    }
  };
}

// ---------------------------------------------------------------------------------------------
// Addresses and host names (no Node API: the UI uses these too)

export const isIPv4 = (s: string) => z.ipv4().safeParse(s).success;
export const isIPv6 = (s: string) => z.ipv6().safeParse(s).success;

/** The eight 16-bit groups of a valid IPv6 address (embedded IPv4 included). */
function ipv6Groups(s: string): number[] {
  let str = s.toLowerCase();
  const v4 = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(str);
  if (v4) {
    const [a, b, c, d] = v4.slice(2).map(Number);
    str = `${v4[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = str.split('::');
  const parse = (h: string) => (h === '' ? [] : h.split(':').map((x) => parseInt(x, 16)));
  const head = parse(halves[0]);
  const tail = halves.length > 1 ? parse(halves[1]) : [];
  return [...head, ...Array<number>(Math.max(0, 8 - head.length - tail.length)).fill(0), ...tail];
}

/**
 * Why an address cannot be a peer's address: 0.0.0.0/8 ("this host", unspecified), 255.255.255.255
 * (broadcast), `::` (unspecified), and the IPv4-mapped forms of those; null when it can.
 */
export function unusableAddressReason(ip: string): string | null {
  let v4: number[] | null = null;
  if (isIPv4(ip)) v4 = ip.split('.').map(Number);
  else if (isIPv6(ip)) {
    const g = ipv6Groups(ip);
    if (g.every((x) => x === 0)) return 'the unspecified address';
    if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) v4 = [g[6] >> 8, g[6] & 255, g[7] >> 8, g[7] & 255];
  } else return 'not an IP address';
  if (v4) {
    if (v4[0] === 0) return 'the unspecified address';
    if (v4.every((x) => x === 255)) return 'the broadcast address';
  }
  return null;
}

/** An IPv4 or IPv6 address a server can have (not 0.0.0.0, 255.255.255.255 or ::). */
export const isUsableAddress = (ip: string) => (isIPv4(ip) || isIPv6(ip)) && unusableAddressReason(ip) === null;

/** An IPv4 or IPv6 address a server can have, or empty (not set). */
export function address(label: string) {
  return z
    .string({ error: (iss) => (iss.input === undefined ? `${label} is required` : `${label} must be text`) })
    .trim()
    .max(64, `${label} is at most 64 characters`)
    .superRefine((v, ctx) => {
      if (v === '') return;
      if (!isIPv4(v) && !isIPv6(v)) ctx.addIssue({ code: 'custom', message: `${label} must be an IPv4 or IPv6 address` });
      else {
        const why = unusableAddressReason(v);
        if (why) ctx.addIssue({ code: 'custom', message: `${label} ${v} is ${why}, not a server's address` });
      }
    });
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;
/** A last label that URL parsers read as a number (decimal or 0x hex): the name would be an IPv4 address. */
const NUMERIC_LABEL = /^(\d+|0x[0-9a-f]*)$/i;

/**
 * A DNS host name (letters, digits, '-', dot-separated labels of 1-63, 253 at most) whose last label is
 * not a number: '7', '0x7f000001' and '999.1.1.1' are not host names (a browser or curl would read
 * them as IPv4 addresses).
 */
export function isHostName(s: string): boolean {
  if (s.length < 1 || s.length > 253) return false;
  const labels = s.split('.');
  return labels.every((l) => LABEL.test(l)) && !NUMERIC_LABEL.test(labels[labels.length - 1]);
}

/** A host name, or an IPv4 address a peer can have (dotted quad, no leading zeros). */
export const isHostOrAddress = (s: string) => isHostName(s) || (isIPv4(s) && unusableAddressReason(s) === null);

/** A host name (example.com), lower case. */
export function hostName(label: string, max = 253) {
  return text(label, max, { min: 1 })
    .refine((v) => isHostName(v), `${label} must be a host name (example.com), not a number or an address`)
    .transform((v) => v.toLowerCase());
}

/** An absolute http:// or https:// URL with a host: 'http:/x', 'http:x', '//x' and 'ftp://x' are not. */
export function isHttpUrl(s: string): boolean {
  if (!/^https?:\/\/[^/?#\s\\]/i.test(s)) return false;
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Walking a schema (tests, docs)

export interface NumericField {
  /** Path inside the argument; numbers are array positions (['list', 0, 'Id']). */
  path: (string | number)[];
  kind: FieldKind;
  label: string;
  /** A list is also accepted at this path (`oneOrMany`): `[5]` is then a valid shape. */
  listOk: boolean;
}

type Def = { type: string; [k: string]: unknown };
const defOf = (s: unknown): Def | undefined => (s as { _zod?: { def?: Def } })?._zod?.def;

/** The numeric fields (made by this module) of an input schema, found by walking objects, arrays, unions, pipes, optionals and defaults. */
export function numericFieldsOf(schema: z.ZodType): NumericField[] {
  const out = new Map<string, NumericField>();
  const walk = (s: unknown, path: (string | number)[], listOk: boolean, depth: number) => {
    if (depth > 20 || !s) return;
    const meta = fieldKinds.get(s as z.ZodType);
    if (meta) {
      const key = JSON.stringify(path);
      const old = out.get(key);
      out.set(key, { path, kind: meta.kind, label: meta.label, listOk: listOk || !!meta.list || !!old?.listOk });
      // the items of a oneOrMany list are numeric fields of their own; an idList's items are checked as a whole
      if (meta.list && meta.kind !== 'idList') out.set(JSON.stringify([...path, 0]), { path: [...path, 0], kind: meta.kind, label: meta.label, listOk: false });
      return;
    }
    const def = defOf(s);
    if (!def) return;
    switch (def.type) {
      case 'object':
        for (const [k, v] of Object.entries(def.shape as Record<string, unknown>)) walk(v, [...path, k], false, depth + 1);
        break;
      case 'array':
        walk(def.element, [...path, 0], false, depth + 1);
        break;
      case 'union': {
        const options = def.options as unknown[];
        const hasList = options.some((o) => defOf(o)?.type === 'array');
        for (const o of options) walk(o, path, listOk || hasList, depth + 1);
        break;
      }
      case 'pipe':
        walk(def.in, path, listOk, depth + 1);
        walk(def.out, path, listOk, depth + 1);
        break;
      case 'optional': case 'nullable': case 'default': case 'prefault': case 'readonly': case 'catch': case 'nonoptional':
        walk(def.innerType, path, listOk, depth + 1);
        break;
      default:
        break;
    }
  };
  walk(schema, [], false, 0);
  return [...out.values()];
}

/**
 * Switches of an input schema not made by `flag()`: a `z.boolean()` of its own, or an `int(0, 1)`.
 * Each refuses some of the forms a switch takes everywhere else (0, 1, '0', '1', true, false); the
 * bad-input test lists them for every registered method. Answers their paths.
 */
export function adHocSwitchesOf(schema: z.ZodType): string[] {
  const out = new Set<string>();
  const walk = (s: unknown, path: (string | number)[], depth: number) => {
    if (depth > 20 || !s) return;
    const meta = fieldKinds.get(s as z.ZodType);
    if (meta) {
      if (meta.kind === 'int' && meta.min === 0 && meta.max === 1) out.add(path.join('.'));
      return;
    }
    const def = defOf(s);
    if (!def) return;
    switch (def.type) {
      case 'boolean': out.add(path.join('.')); break;
      case 'object': for (const [k, v] of Object.entries(def.shape as Record<string, unknown>)) walk(v, [...path, k], depth + 1); break;
      case 'array': walk(def.element, [...path, 0], depth + 1); break;
      case 'union': for (const o of def.options as unknown[]) walk(o, path, depth + 1); break;
      case 'pipe': walk(def.in, path, depth + 1); walk(def.out, path, depth + 1); break;
      case 'optional': case 'nullable': case 'default': case 'prefault': case 'readonly': case 'catch': case 'nonoptional':
        walk(def.innerType, path, depth + 1);
        break;
      default: break;
    }
  };
  walk(schema, [], 0);
  return [...out];
}

/**
 * `select`: the columns to answer, as a comma list ('Id, title') or a list of names; a name outside
 * `columns` is refused with 422 naming `select`. Answers the names, each once, in the order given.
 */
export function selectOf<const C extends readonly string[]>(columns: C) {
  const allowed = new Set<string>(columns);
  return z
    .union([z.string(), z.array(z.string())], { error: () => `select must be a comma list of columns (${columns.join(', ')})` })
    .transform((v, ctx): C[number][] => {
      const names = (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean);
      const bad = names.filter((n) => !allowed.has(n));
      if (bad.length) {
        ctx.addIssue({ code: 'custom', message: `select: unknown column ${bad.map((b) => `'${b.slice(0, 40)}'`).join(', ')} (allowed: ${columns.join(', ')})`, input: v });
        return z.NEVER;
      }
      if (!names.length) {
        ctx.addIssue({ code: 'custom', message: `select names no column (allowed: ${columns.join(', ')})`, input: v });
        return z.NEVER;
      }
      return [...new Set(names)] as C[number][];
    });
}
