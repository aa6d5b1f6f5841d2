/**
 * Yandex Search API v2 answers (EXTERNAL-APIS.md "Yandex Search API v2"; Yandex Cloud Search API
 * documentation: "Text search", "XML response format") and their decoders.
 *
 * `POST {base}/v2/web/search` answers JSON `{rawData: <base64 of an XML document>}`. The XML is the
 * classic `yandexsearch` document: `yandexsearch/response/results/grouping/group/doc/{url, domain,
 * title, ...}`, `response/found` the total, and `response/error code="N"` on a failure (code 15: no
 * results, which is an empty page, not a failure).
 *
 * The XML is read with fast-xml-parser (validated first: malformed markup is an XmlError naming the
 * line). A DOCTYPE (and with it any entity declaration) is refused before parsing: the answer never
 * has one, and refusing it shuts out entity-expansion attacks; the predefined and HTML named
 * entities and character references are decoded. Mixed content keeps its order (titles carry `<hlword>` marks).
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// XML, through fast-xml-parser

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** The element's own text (its text and CDATA, not its children's), entities decoded. */
  text: string;
  /** Text and child elements in document order. */
  nodes: Array<string | XmlElement>;
}

export class XmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XmlError';
  }
}

/** Deepest nesting accepted (the answer's is about 8). */
const MAX_DEPTH = 64;
const ATTR = '@_';
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: ATTR,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  cdataPropName: '#cdata',
  commentPropName: false,
});

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

function toElement(node: OrderedNode, depth: number): XmlElement {
  if (depth > MAX_DEPTH) throw new XmlError(`nesting deeper than ${MAX_DEPTH}`);
  const name = Object.keys(node).find((k) => k !== ':@')!;
  const attrs: Record<string, string> = {};
  for (const [k, v] of Object.entries(node[':@'] ?? {})) attrs[k.startsWith(ATTR) ? k.slice(ATTR.length) : k] = String(v);
  const el: XmlElement = { name, attrs, children: [], text: '', nodes: [] };
  for (const c of (node[name] as OrderedNode[]) ?? []) {
    if ('#text' in c) {
      const t = String(c['#text']);
      el.text += t;
      el.nodes.push(t);
    } else if ('#cdata' in c) {
      const t = ((c['#cdata'] as OrderedNode[]) ?? []).map((x) => String(x['#text'] ?? '')).join('');
      el.text += t;
      el.nodes.push(t);
    } else {
      const ch = toElement(c, depth + 1);
      el.children.push(ch);
      el.nodes.push(ch);
    }
  }
  return el;
}

/** Parses a whole document; answers its root element. */
export function parseXml(src: string): XmlElement {
  if (/<!DOCTYPE|<!ENTITY/i.test(src)) throw new XmlError('a DOCTYPE or entity declaration is not accepted');
  if (!src.trim()) throw new XmlError('no root element');
  const valid = XMLValidator.validate(src);
  if (valid !== true) throw new XmlError(`${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
  let parsed: OrderedNode[];
  try {
    parsed = parser.parse(src) as OrderedNode[];
  } catch (e) {
    throw new XmlError((e as Error).message);
  }
  const roots = parsed.filter((n) => !('#text' in n));
  if (roots.length !== 1) throw new XmlError(roots.length ? 'a second root element' : 'no root element');
  return toElement(roots[0], 1);
}

/** The first child named `name`. */
export const child = (el: XmlElement | undefined, name: string): XmlElement | undefined => el?.children.find((c) => c.name === name);
/** Every child named `name`. */
export const childrenOf = (el: XmlElement | undefined, name: string): XmlElement[] => el?.children.filter((c) => c.name === name) ?? [];
/** The text of an element and all its descendants (titles carry <hlword> marks). */
export function deepText(el: XmlElement | undefined): string {
  if (!el) return '';
  return el.nodes.map((n) => (typeof n === 'string' ? n : deepText(n))).join('');
}

// ---------------------------------------------------------------------------------------------
// The answer

/** The JSON envelope: `{rawData: base64}`. */
export const SearchAnswerWire = z.object({
  rawData: z.string().min(1, 'rawData is empty').regex(/^[A-Za-z0-9+/=\s]+$/, 'rawData must be base64'),
});

/** Errors of the JSON API (gRPC status shape): `{code, message, details}` or `{error: {...}}`. */
export const SearchErrorWire = z.object({
  code: z.union([z.number(), z.string()]).optional(),
  message: z.string().optional(),
  error: z.union([z.string(), z.object({ code: z.union([z.number(), z.string()]).optional(), message: z.string().optional() })]).optional(),
});

export interface SearchDoc {
  url: string;
  domain: string;
  title: string;
}

export interface SearchPage {
  /** The documents of the page's groups, in order (one per group: the group's first doc). */
  docs: SearchDoc[];
  /** `found` of the response (the engine's estimate of all results), 0 when absent. */
  found: number;
}

/** An `<error code="N">` in the response (other than "no results"). */
export class SearchXmlError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'SearchXmlError';
  }
}

/** Yandex's error code for "no results for this query": an empty page, not a failure. */
export const NO_RESULTS_CODE = '15';

/** Decodes base64 rawData into the page's documents. Throws XmlError (bad XML / shape) or SearchXmlError (the engine's own error). */
export function decodeSearchPage(rawData: string): SearchPage {
  const xml = Buffer.from(rawData.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (!xml.trim()) throw new XmlError('rawData decodes to nothing');
  const root = parseXml(xml);
  if (root.name !== 'yandexsearch') throw new XmlError(`root element is <${root.name}>, not <yandexsearch>`);
  const response = child(root, 'response');
  if (!response) throw new XmlError('no <response> element');
  const error = child(response, 'error');
  if (error) {
    const code = error.attrs.code ?? '';
    if (code === NO_RESULTS_CODE) return { docs: [], found: 0 };
    throw new SearchXmlError(code, deepText(error).trim() || `error ${code}`);
  }
  const results = child(response, 'results');
  const grouping = child(results, 'grouping');
  const found = Number(deepText(child(response, 'found')).trim()) || 0;
  if (!results || !grouping) {
    if (found === 0) return { docs: [], found: 0 };
    throw new XmlError('no <results>/<grouping> element');
  }
  const docs: SearchDoc[] = [];
  for (const g of childrenOf(grouping, 'group')) {
    const doc = child(g, 'doc');
    const url = deepText(child(doc, 'url')).trim();
    if (!doc || !url) throw new XmlError('a <group> without <doc>/<url>');
    docs.push({ url, domain: deepText(child(doc, 'domain')).trim().toLowerCase(), title: deepText(child(doc, 'title')).replace(/\s+/g, ' ').trim() });
  }
  return { docs, found };
}

/** The host of a result's URL, lower case, without a leading `www.` ('' when the URL has none). */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return '';
  }
}

/** Whether a result belongs to the project's domain: the same host, `www.` or not (a subdomain counts only when the project names it). */
export function sameSite(url: string, domain: string): boolean {
  const d = domain.toLowerCase().replace(/^www\./, '');
  return d !== '' && hostOf(url) === d;
}
