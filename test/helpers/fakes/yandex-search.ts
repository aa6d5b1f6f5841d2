/**
 * Yandex Search API v2 web search on loopback (EXTERNAL-APIS.md "Yandex Search API v2"; the Yandex Cloud
 * Search API documentation: "Text search", request body, "XML response format"), over
 * test/helpers/fake-http.ts. `POST /v2/web/search` with `Authorization: Api-Key <key>` and `{query:
 * {searchType, queryText, page}, groupSpec: {groupMode, groupsOnPage, docsInGroup}, region, folderId,
 * responseFormat}` answers `{rawData: base64 of the yandexsearch XML}` holding the page's groups of
 * `state.serps[queryText]` (a list of result URLs); an unknown query answers the XML error code 15 (no
 * results). A wrong key answers 401 `{code: 16, message}`; a wrong folder 403 `{code: 7, message}`.
 * Tests script 429s, 5xx and malformed answers with `fake.script(YANDEX_ROUTE, ...)`.
 */
import { startFakeHttp, type FakeHttp, type FakeRequest } from '../fake-http.js';

export const YANDEX_ROUTE = 'POST /v2/web/search';

export interface YandexState {
  key: string;
  folderId: string;
  /** Result URLs per query text, in rank order. */
  serps: Record<string, string[]>;
}

export interface FakeYandex extends FakeHttp {
  state: YandexState;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The XML document of one page (the shape of the documentation's example, trimmed to what matters). */
export function yandexXml(query: string, urls: string[], page: number, groupsOnPage: number): string {
  const slice = urls.slice(page * groupsOnPage, (page + 1) * groupsOnPage);
  const groups = slice.map((u, i) => {
    const host = new URL(u).hostname;
    return `<group><categ attr="d" name="${esc(host)}"/><doccount>1</doccount><relevance/><doc id="D${page}-${i}"><relevance/><url>${esc(u)}</url><domain>${esc(host)}</domain><title>Result &quot;${i + 1}&quot; for <hlword>${esc(query)}</hlword></title><headline>h</headline><modtime>20250101T000000</modtime><size>1000</size><charset>utf-8</charset><passages><passage>p</passage></passages><properties><_PassagesType>0</_PassagesType></properties><mime-type>text/html</mime-type></doc></group>`;
  });
  return `<?xml version="1.0" encoding="utf-8"?>
<yandexsearch version="1.0"><request><query>${esc(query)}</query><page>${page}</page><sortby order="descending" priority="no">rlv</sortby><maxpassages/><groupings><groupby attr="d" mode="deep" groups-on-page="${groupsOnPage}" docs-in-group="1" curcateg="-1"/></groupings></request>
<response date="20250101T120000"><reqid>1700000000000000-1-2-3</reqid><found priority="phrase">${urls.length}</found><found priority="strict">${urls.length}</found><found priority="all">${urls.length}</found><found-human>Found ${urls.length} results</found-human>
<results><grouping attr="d" mode="deep" groups-on-page="${groupsOnPage}" docs-in-group="1" curcateg="-1"><found priority="phrase">${urls.length}</found><found-docs priority="phrase">${urls.length}</found-docs><page first="${page * groupsOnPage + 1}" last="${page * groupsOnPage + slice.length}">${page}</page>${groups.join('')}</grouping></results></response></yandexsearch>`;
}

export const noResultsXml = (query: string) =>
  `<?xml version="1.0" encoding="utf-8"?><yandexsearch version="1.0"><request><query>${esc(query)}</query></request><response date="20250101T120000"><error code="15">Sorry, there are no results for this search</error><reqid>1</reqid></response></yandexsearch>`;

export const b64 = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

/** `count` result URLs where `domain` is at `pos` (1-based; 0: absent); the others on other-N.example. */
export function serp(domain: string, pos: number, count = 100, path = '/page'): string[] {
  return Array.from({ length: count }, (_, i) => (i + 1 === pos ? `https://${domain}${path}` : `https://other-${i + 1}.example/r${i + 1}`));
}

export async function startFakeYandex(init: Partial<YandexState> = {}): Promise<FakeYandex> {
  const state: YandexState = { key: 'AQVN-test-search-key-0123456789', folderId: 'b1gtestfolder', serps: {}, ...init };
  const handle = (req: FakeRequest) => {
    if (req.headers.authorization !== `Api-Key ${state.key}`) return { status: 401, body: { code: 16, message: 'Unauthenticated', details: [] } };
    const b = req.json as { query?: { queryText?: string; page?: number; searchType?: string }; groupSpec?: { groupsOnPage?: number }; folderId?: string; region?: string } | undefined;
    if (!b?.query?.queryText) return { status: 400, body: { code: 3, message: 'query.queryText is required', details: [] } };
    if (b.folderId !== state.folderId) return { status: 403, body: { code: 7, message: `Permission denied to folder ${b.folderId}`, details: [] } };
    const urls = state.serps[b.query.queryText];
    const xml = urls && urls.length ? yandexXml(b.query.queryText, urls, b.query.page ?? 0, b.groupSpec?.groupsOnPage ?? 10) : noResultsXml(b.query.queryText);
    return { body: { rawData: b64(xml) } };
  };
  const fake = await startFakeHttp({ [YANDEX_ROUTE]: handle });
  return Object.assign(fake, { state });
}
