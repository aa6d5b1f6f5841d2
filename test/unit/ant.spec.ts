/**
 * The pure parts of Ant (docs/ant.md): only-step (001 §5), proxy batches (001 §5), shingles and Jaccard,
 * robots.txt rules of the reference ant, page and sitemap reading.
 */
import { antShingles, jaccard, parseOnlyStep, parseProxyBatch, proxyWaitMessage } from '../../src/contracts/ant.js';
import { parseRobots, robotsAllows } from '../../src/ant/fetcher.js';
import { parsePage, parseSitemap } from '../../src/ant/html.js';

test('only-step: comma-separated integers, entries not above 0 dropped, empty allowed', () => {
  expect(parseOnlyStep('')).toEqual([]);
  expect(parseOnlyStep('1, 2,0,-3, x, 2.5, 8,1')).toEqual([1, 2, 8]);
  expect(parseOnlyStep(' 22 ')).toEqual([22]);
});

test('proxy batch: lines with another part count than the pattern are dropped and listed', () => {
  const r = parseProxyBatch('1.2.3.4:8080:u:p\n\nbad line\n5.6.7.8:3128:u2:p2:extra\nhost.example:99999:a:b\nproxy.example:3128:x:y', 'ip:port:login:pass');
  expect(r.rows).toEqual([{ ip: '1.2.3.4:8080', login: 'u', pass: 'p' }, { ip: 'proxy.example:3128', login: 'x', pass: 'y' }]);
  expect(r.dropped.map((d) => d.line)).toEqual([3, 4, 5]);
  expect(parseProxyBatch('u:p:1.2.3.4:80', 'login:pass:ip:port').rows).toEqual([{ ip: '1.2.3.4:80', login: 'u', pass: 'p' }]);
  expect(parseProxyBatch('1.2.3.4:80', 'ip:port').rows).toEqual([{ ip: '1.2.3.4:80', login: '', pass: '' }]);
  expect(proxyWaitMessage(3)).toBe('Wait insert 3 row');
});

test('shingles and Jaccard: identical 1, disjoint 0, partial in between', () => {
  const a = antShingles('one two three four five six seven eight');
  expect(jaccard(a, a)).toBe(1);
  expect(jaccard(a, antShingles('nine ten eleven twelve thirteen'))).toBe(0);
  const p = jaccard(a, antShingles('One, two; three four five six! and more words here'));
  expect(p).toBeGreaterThan(0);
  expect(p).toBeLessThan(1);
  expect(antShingles('Привет мир как дела сегодня').length).toBe(2);
});

test('robots.txt: own group over *, longest match, Allow wins ties, * and $', () => {
  const txt = 'User-agent: *\nDisallow: /private/\nAllow: /private/open\n\nUser-agent: OtherBot\nDisallow: /\n';
  const rules = parseRobots(txt, 'AntBot/1.0');
  expect(robotsAllows(rules, '/private/x')).toBe(false);
  expect(robotsAllows(rules, '/private/open/1')).toBe(true);
  expect(robotsAllows(rules, '/public')).toBe(true);
  expect(robotsAllows(parseRobots('User-agent: antbot\nDisallow: /*.pdf$\n', 'AntBot/1.0'), '/a/b.pdf')).toBe(false);
  expect(robotsAllows(parseRobots(txt, 'OtherBot/2'), '/anything')).toBe(false);
});

test('page and sitemap reading', () => {
  const p = parsePage('<html><head><title>T</title></head><body><nav><a href="/c/1">C1</a></nav><main><a href="/i/1#x">I1</a><a rel="next" href="?p=2">n</a><script>x()</script><p>Body text</p></main></body></html>', 'http://s.example/c/0');
  expect(p.title).toBe('T');
  expect(p.links).toEqual([
    { url: 'http://s.example/c/1', rel: '', chrome: true },
    { url: 'http://s.example/i/1', rel: '', chrome: false },
    { url: 'http://s.example/c/0?p=2', rel: 'next', chrome: false },
  ]);
  expect(p.next).toBe('http://s.example/c/0?p=2');
  expect(p.text).toContain('Body text');
  expect(p.text).not.toContain('x()');
  expect(parseSitemap('<sitemapindex><sitemap><loc>http://s.example/s1.xml</loc></sitemap></sitemapindex>', 'http://s.example/')).toEqual({ index: true, urls: ['http://s.example/s1.xml'] });
});
