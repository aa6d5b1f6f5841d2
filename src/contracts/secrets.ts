/**
 * Secrets inside text (docs/architecture.md "Security", docs/cron.md): the one reading of where a URL's
 * user part ends and of which names hold secrets, shared by the cron cmd splitter (./cron.ts, which
 * seals them at rest), the audit and log masker (src/core/audit/mask.ts) and the UI. The splitter and
 * the masker use these same functions, so they always agree on what is secret.
 */

/** What stands for a secret in answers, the audit and the logs. */
export const SECRET_MASK = '***';

/**
 * Names (object fields, URL query parameters, `name=value` arguments) whose values are secrets, the
 * one list: any name containing pass (password, passwd, passphrase), pwd, secret, token (access_token),
 * hash, private, credential or signature; `auth` as a word (auth, x-auth, auth_code, basicAuth, not
 * author) and authorization; a name ending in key (key, api_key, apikey, X-Api-Key, key_data); session
 * ids (sessid, session_id).
 */
export const SECRET_NAME = /pass|pwd|secret|token|hash|private|credential|signature|authori[sz]ation|(^|[^a-z])auth(?![a-z])|auth$|key(_?data)?$|sess(ion)?_?id$/i;

const decode = (s: string) => {
  try { return decodeURIComponent(s.replace(/\+/g, ' ')); } catch { return s; }
};

/** Whether a field, parameter or argument name (percent-decoded first) names a secret. */
export const isSecretName = (name: string) => SECRET_NAME.test(name) || SECRET_NAME.test(decode(name));

// ---------------------------------------------------------------------------------------------
// A URL's user part

/**
 * The user part of a URL whose authority starts at `from` (just after `scheme://`) in `text`: it runs
 * to the **last '@' before the first '/', '?', '#' or '|'** (the part separator of a cron cmd) or the
 * end of the text. Anything else may be in it raw: ':' (the first one splits user and password), '@',
 * quotes, '<', '>', '`', '\', white space, non-ASCII. Returns the index of that '@', or -1 when there
 * is no user part. The cron splitter and the masker both read it so.
 */
export function userinfoEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length && !'/?#|'.includes(text[end])) end++;
  if (end === from) return -1;
  const at = text.lastIndexOf('@', end - 1);
  return at >= from ? at : -1;
}

/** `user:pass` -> `user:***`; a user part without ':' (often a token) -> `***`. */
export function maskUserinfo(userinfo: string): string {
  const colon = userinfo.indexOf(':');
  return colon >= 0 ? `${userinfo.slice(0, colon)}:${SECRET_MASK}` : SECRET_MASK;
}

/** The user part is the mask itself (`user:***`, `***`): "keep what is stored". */
export function isMaskedUserinfo(userinfo: string): boolean {
  const colon = userinfo.indexOf(':');
  return (colon >= 0 ? userinfo.slice(colon + 1) : userinfo) === SECRET_MASK;
}

const SCHEME_CHAR = /[a-z0-9+.-]/i;
const LETTER = /[a-z]/i;
/**
 * The next `scheme://` at or after `from`, as /[a-z][a-z0-9+.-]*:\/\//i would find it, in linear time: a
 * regex scan restarts at every letter of a long run that holds no '://' (a base64 upload in an argument
 * or a log line) and is quadratic there.
 */
function nextScheme(text: string, from: number): { index: number; end: number } | null {
  for (let i = text.indexOf('://', from); i >= 0; i = text.indexOf('://', i + 1)) {
    let j = i;
    while (j > from && SCHEME_CHAR.test(text[j - 1])) j--;
    while (j < i && !LETTER.test(text[j])) j++;
    if (j < i) return { index: j, end: i + 3 };
  }
  return null;
}

/** The user part of every URL in `text` masked: `http://user:pass@host/x` -> `http://user:***@host/x`; `https://token@host` -> `https://***@host`. */
export function maskUrlCredentials(text: string): string {
  if (!text.includes('@')) return text;
  let out = '';
  let last = 0;
  for (let m = nextScheme(text, 0); m; ) {
    const from = m.end;
    const at = userinfoEnd(text, from);
    if (at < 0) { m = nextScheme(text, from); continue; }
    out += text.slice(last, from) + maskUserinfo(text.slice(from, at));
    last = at;
    m = nextScheme(text, at + 1);
  }
  return out + text.slice(last);
}

// ---------------------------------------------------------------------------------------------
// Query parameters: `?a=1&token=xyz#frag`

export interface QueryPart {
  /** As written, `name=value` or `name`. */
  text: string;
  /** The name as written (before the first '='); the whole part when it has no '='. */
  name: string;
  /** The value as written; null when the part has no '='. */
  value: string | null;
  /** The name is secret (isSecretName) and there is a value. */
  secret: boolean;
}

export interface SplitQuery {
  /** Up to and with the '?' (the whole text when there is no query). */
  head: string;
  /** The parameters, split by '&'. */
  parts: QueryPart[];
  /** From the '#' on, or ''. */
  tail: string;
}

/** `a=1&token=x` split by '&' into parameters. */
export function queryParts(query: string): QueryPart[] {
  return query.split('&').map((text): QueryPart => {
    const eq = text.indexOf('=');
    const name = eq < 0 ? text : text.slice(0, eq);
    const value = eq < 0 ? null : text.slice(eq + 1);
    return { text, name, value, secret: !!value && isSecretName(name) };
  });
}

/** Splits the query of a URL (without a user part): from the first '?' to the first '#' after it, by '&'. */
export function splitQuery(url: string): SplitQuery {
  const q = url.indexOf('?');
  const hash = url.indexOf('#');
  if (q < 0 || (hash >= 0 && hash < q)) return { head: url, parts: [], tail: '' };
  const end = hash > q ? hash : url.length;
  return { head: url.slice(0, q + 1), parts: queryParts(url.slice(q + 1, end)), tail: url.slice(end) };
}

export const joinQuery = (q: SplitQuery) => (q.parts.length ? q.head + q.parts.map((p) => p.text).join('&') + q.tail : q.head + q.tail);

/** The query with every secret parameter's value masked (`token=***`). */
export function maskQuery(url: string): string {
  const q = splitQuery(url);
  if (!q.parts.some((p) => p.secret)) return url;
  return joinQuery({ ...q, parts: q.parts.map((p) => (p.secret ? { ...p, text: `${p.name}=${SECRET_MASK}` } : p)) });
}

// ---------------------------------------------------------------------------------------------
// Free text (audit arguments and messages, log lines)

/** A `name=` with a name as a cron argument or a query parameter writes it. */
const NAME_CHAR = /[\w.[\]-]/;
const NAME_START = /[A-Za-z_]/;
/**
 * The next `name=` at or after `from` whose name is a whole word, as /(?<![\w.[\]-])([A-Za-z_][\w.[\]-]*)=/
 * would find it, in linear time (the regex is quadratic over a long run of word characters without '=').
 */
function nextNameEq(text: string, from: number): { index: number; end: number; name: string } | null {
  for (let i = text.indexOf('=', from); i >= 0; i = text.indexOf('=', i + 1)) {
    let k = i;
    while (k > 0 && NAME_CHAR.test(text[k - 1])) k--;
    if (k >= from && k < i && NAME_START.test(text[k])) return { index: k, end: i + 1, name: text.slice(k, i) };
  }
  return null;
}

/**
 * Every secret in free text masked, greedily (it may hide more than a cron answer does, never less):
 * - the user part of every URL (userinfoEnd, as the cron splitter reads it);
 * - inside a URL (from `scheme://` to the next '|' or the end), after its authority: secret query (and
 *   fragment) parameters as splitQuery reads them, `token=***`, and whatever else the rest holds;
 * - elsewhere, a secret `name=value` (a cron argument `arg=password=…`, `password=…` in a message):
 *   the value up to the next '&&' (the cron argument separator), '|' or the end of the text.
 */
export function maskSecretText(text: string): string {
  if (!text.includes('=') && !text.includes('@')) return text;
  let out = '';
  let pos = 0;
  while (pos < text.length) {
    const s = nextScheme(text, pos);
    let n = nextNameEq(text, pos);
    while (n && !isSecretName(n.name) && (!s || n.index < s.index)) n = nextNameEq(text, n.end);
    if (n && (!s || n.index < s.index)) {
      // A secret name=value outside a URL: up to '&&', '|' or the end.
      const from = n.end;
      const ends = [text.indexOf('&&', from), text.indexOf('|', from)].filter((i) => i >= 0);
      const end = ends.length ? Math.min(...ends) : text.length;
      out += text.slice(pos, from) + (end > from ? SECRET_MASK : '');
      pos = end;
      continue;
    }
    if (!s) break;
    // A URL: its user part, then the rest up to '|' or the end.
    const from = s.end;
    const pipe = text.indexOf('|', from);
    const end = pipe >= 0 ? pipe : text.length;
    const at = userinfoEnd(text, from);
    out += text.slice(pos, from) + (at >= 0 ? maskUserinfo(text.slice(from, at)) + '@' : '');
    out += maskUrlRest(text.slice(at >= 0 ? at + 1 : from, end));
    pos = end;
  }
  return out + text.slice(pos);
}

/** A URL after its user part (`host/path?query#fragment`, no '|'): secret parameters of the query and of the fragment masked, the rest as free text. */
function maskUrlRest(rest: string): string {
  const part = (p: QueryPart) => (p.secret ? `${p.name}=${SECRET_MASK}` : p.value === null ? maskSecretText(p.text) : `${p.name}=${maskSecretText(p.value)}`);
  const q = splitQuery(rest);
  if (!q.parts.length) {
    const hash = rest.indexOf('#');
    return hash < 0 ? maskSecretText(rest) : maskSecretText(rest.slice(0, hash)) + '#' + queryParts(rest.slice(hash + 1)).map(part).join('&');
  }
  const tail = q.tail ? '#' + queryParts(q.tail.slice(1)).map(part).join('&') : '';
  return maskSecretText(q.head.slice(0, -1)) + '?' + q.parts.map(part).join('&') + tail;
}
