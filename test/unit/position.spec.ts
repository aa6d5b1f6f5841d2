/**
 * Search positions, the pure parts (docs/position.md): XML reading (fast-xml-parser, DOCTYPE refused) and the decoder of the
 * Yandex Search API v2 page (yandex-search.wire.ts), the position calculation across pages, the
 * domain match, the schedule (slots spread over the period, the tick budget never overspent), and the
 * input schemas.
 */
import { PositionSaveProjectArgs, PositionSaveQueriesArgs, posLabel } from '../../src/contracts/position.js';
import { decodeSearchPage, deepText, parseXml, sameSite, SearchXmlError, XmlError } from '../../src/core/outside/yandex-search.wire.js';
import { findInPages, nextCheckAt, pagesFor, retryAt, slotOffset, TickBudget, tickBudget } from '../../src/modules/position/schedule.js';
import { b64, noResultsXml, serp, yandexXml } from '../helpers/fakes/yandex-search.js';

describe('parseXml', () => {
  test('elements, attributes, text, CDATA, comments, entities', () => {
    const el = parseXml('<?xml version="1.0"?>\n<!-- c --><a x="1" y=\'&quot;2&quot;\'><b>t &amp; u &#1071;&#x42;</b><c/><![CDATA[<raw>]]></a>');
    expect(el.name).toBe('a');
    expect(el.attrs).toEqual({ x: '1', y: '"2"' });
    expect(el.children.map((c) => c.name)).toEqual(['b', 'c']);
    expect(el.children[0].text).toBe('t & u ЯB');
    expect(el.text).toBe('<raw>');
  });

  test('mixed content keeps its order (a title with hlword marks)', () => {
    expect(deepText(parseXml('<title>Best <hlword>books</hlword> online &amp; more</title>'))).toBe('Best books online & more');
  });

  test.each([
    ['<a><b></a>', 'b'],
    ['<a>', 'a'],
    ['<a></a><b/>', ''],
    ['<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>', 'DOCTYPE'],
    ['<a x=1/>', ''],
    ['', 'no root'],
    ['text', ''],
  ])('refuses %s', (src, says) => {
    expect(() => parseXml(src)).toThrow(XmlError);
    expect(() => parseXml(src)).toThrow(says);
  });

  test('nesting is bounded', () => {
    expect(() => parseXml('<a>'.repeat(100) + '</a>'.repeat(100))).toThrow('nesting deeper than 64');
  });
});

describe('decodeSearchPage', () => {
  test('the documentation-shaped page: urls in order, hlword titles, found', () => {
    const urls = serp('site.example', 3, 25);
    const p = decodeSearchPage(b64(yandexXml('q & a', urls, 1, 10)));
    expect(p.docs.map((d) => d.url)).toEqual(urls.slice(10, 20));
    expect(p.docs[0]).toMatchObject({ domain: 'other-11.example', title: 'Result "1" for q & a' });
    expect(p.found).toBe(25);
  });

  test('error 15 (no results) is an empty page; any other error code is an error', () => {
    expect(decodeSearchPage(b64(noResultsXml('x')))).toEqual({ docs: [], found: 0 });
    const other = b64('<yandexsearch><response><error code="55">Too many</error></response></yandexsearch>');
    expect(() => decodeSearchPage(other)).toThrow(SearchXmlError);
    expect(() => decodeSearchPage(other)).toThrow('Too many');
  });

  test('malformed pages are XmlErrors', () => {
    expect(() => decodeSearchPage(b64('<html/>'))).toThrow('not <yandexsearch>');
    expect(() => decodeSearchPage(b64('<yandexsearch/>'))).toThrow('no <response>');
    expect(() => decodeSearchPage(b64('<yandexsearch><response><found>5</found></response></yandexsearch>'))).toThrow('no <results>');
    expect(() => decodeSearchPage(b64('<yandexsearch><response><results><grouping><group><doc/></group></grouping></results></response></yandexsearch>'))).toThrow('without <doc>/<url>');
    expect(() => decodeSearchPage('')).toThrow(XmlError);
  });
});

describe('position calculation', () => {
  const pages = (urls: string[], size = 10) => {
    const asked: number[] = [];
    return { asked, fetch: async (page: number) => { asked.push(page); return urls.slice(page * size, (page + 1) * size).map((url) => ({ url })); } };
  };
  const match = (url: string) => sameSite(url, 'site.example');

  test('3 for the third on page one (one request), 15 for the fifth on page two (two)', async () => {
    const a = pages(serp('site.example', 3));
    expect(await findInPages(a.fetch, match, 100)).toEqual({ pos: 3, url: 'https://site.example/page', requests: 1 });
    const b = pages(serp('site.example', 15));
    expect(await findInPages(b.fetch, match, 100)).toMatchObject({ pos: 15, requests: 2 });
    expect(b.asked).toEqual([0, 1]);
  });

  test('not in the top N: null after depth/10 pages; a position past the depth does not count', async () => {
    const a = pages(serp('site.example', 0));
    expect(await findInPages(a.fetch, match, 100)).toEqual({ pos: null, url: '', requests: 10 });
    const b = pages(serp('site.example', 25));
    expect(await findInPages(b.fetch, match, 24)).toEqual({ pos: null, url: '', requests: 3 });
    const c = pages(serp('site.example', 24));
    expect(await findInPages(c.fetch, match, 24)).toMatchObject({ pos: 24, requests: 3 });
  });

  test('the results end early: stops at the short page', async () => {
    const a = pages(serp('site.example', 0, 13));
    expect(await findInPages(a.fetch, match, 100)).toMatchObject({ pos: null, requests: 2 });
  });

  test('the first result of the domain counts; www. is the same site, a subdomain is not', async () => {
    expect(sameSite('https://www.site.example/x', 'site.example')).toBe(true);
    expect(sameSite('http://SITE.example', 'www.site.example')).toBe(true);
    expect(sameSite('https://blog.site.example/', 'site.example')).toBe(false);
    expect(sameSite('https://site.example.evil.test/', 'site.example')).toBe(false);
    expect(sameSite('not a url', 'site.example')).toBe(false);
    const urls = serp('other.example', 0, 30);
    urls[4] = 'https://www.site.example/a';
    urls[8] = 'https://site.example/b';
    expect(await findInPages(pages(urls).fetch, match, 100)).toMatchObject({ pos: 5, url: 'https://www.site.example/a' });
  });

  test('labels', () => {
    expect(posLabel({ pos: 3, top: 100 })).toBe('3');
    expect(posLabel({ pos: null, top: 100 })).toBe('not in top 100');
    expect(posLabel(null)).toBe('-');
  });
});

describe('schedule', () => {
  test('slots spread evenly over the day', () => {
    const day = 86_400_000;
    const hours = new Array(24).fill(0);
    for (let id = 1; id <= 10_000; id++) hours[Math.floor(slotOffset(id, day) / 3_600_000)]++;
    expect(Math.min(...hours)).toBeGreaterThan(300);
    expect(Math.max(...hours)).toBeLessThan(540);
  });

  test('the next check is the slot in the next period, strictly after now', () => {
    const now = Date.UTC(2026, 0, 10, 12, 0, 0);
    for (const id of [1, 2, 3, 77, 12345]) {
      const next = nextCheckAt(now, id, 24);
      expect(next - now).toBeGreaterThan(43_200_000);
      expect(next - now).toBeLessThanOrEqual(86_400_000 + 43_200_000);
      expect(nextCheckAt(next, id, 24) - next).toBe(86_400_000);
    }
    expect(retryAt(now, 24) - now).toBe(30 * 60_000);
    expect(retryAt(now, 6) - now).toBe(30 * 60_000);
  });

  test('the tick budget follows the quotas; a reservation past it is refused', () => {
    expect(tickBudget({ perSecond: 10, perHour: 10_000 })).toBe(150);
    expect(tickBudget({ perSecond: 1, perHour: 1_000_000 })).toBe(54);
    expect(pagesFor(100)).toBe(10);
    expect(pagesFor(95)).toBe(10);
    expect(pagesFor(5)).toBe(1);
    const b = new TickBudget(25);
    expect(b.reserve(10)).toBe(true);
    expect(b.reserve(10)).toBe(true);
    expect(b.reserve(10)).toBe(false);
    b.settle(10, 1);
    expect(b.left).toBe(14);
    expect(b.reserve(10)).toBe(true);
    b.settle(10, 10);
    b.settle(10, 10);
    expect(b.spent).toBe(21);
    expect(b.reserve(10)).toBe(false);
  });
});

describe('input', () => {
  test('a pasted URL is reduced to its host; engine, schedule and depth are checked', () => {
    expect(PositionSaveProjectArgs.parse({ name: ' A ', domain: 'https://WWW.Site.example:8443/path?q=1' })).toMatchObject({ name: 'A', domain: 'www.site.example' });
    expect(PositionSaveProjectArgs.safeParse({ name: 'a', domain: 'site.example', engine: 'bing' }).success).toBe(false);
    expect(PositionSaveProjectArgs.safeParse({ name: 'a', domain: 'site.example', schedule_hours: 24, depth: 250 }).success).toBe(true);
    expect(PositionSaveProjectArgs.safeParse({ name: 'a', domain: '1.2.3.4' }).success).toBe(false);
  });

  test('queries: lines or a list, spacing normalised, blanks dropped, at most 1000', () => {
    expect(PositionSaveQueriesArgs.parse({ id_project: 1, queries: ' a  b \r\n\n c\n' }).queries).toEqual(['a b', 'c']);
    expect(PositionSaveQueriesArgs.parse({ id_project: 1, queries: ['x', ' '] }).queries).toEqual(['x']);
    expect(PositionSaveQueriesArgs.safeParse({ id_project: 1, queries: Array.from({ length: 1001 }, (_, i) => `q${i}`) }).success).toBe(false);
    expect(PositionSaveQueriesArgs.safeParse({ id_project: 1, queries: 'a'.repeat(401) }).success).toBe(false);
    expect(PositionSaveQueriesArgs.safeParse({ id_project: 1, queries: 'a\u200bb' }).success).toBe(false);
  });
});
