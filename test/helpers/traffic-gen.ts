/**
 * A labelled traffic generator for the neural score (issue 9 "Tests and figures"): nginx log lines in
 * the extended `console` format (docs/firewall.md) of people (label 0) and bots (label 1) on one host,
 * in time order, from a fixed seed (a seeded PRNG, never Math.random: the same arguments give the same
 * lines).
 *
 * People: browsers' agents, reading pages (books, catalog, authors, search) with the previous page as
 * referrer at human pace (20-120 s a page), 2-4 static assets per page in the same second, a few 404s,
 * GET (a rare POST of a comment). Varied: ~15% arrive without referrers, ~10% are fast readers (3-10 s a
 * page, assets cached), some have a second device's agent.
 * Bots: fast, wide (many books), no referrer, library or declared-crawler agents, HEAD and POST, deep
 * URLs, more 404s. Varied: ~20% are slow (20-60 s), ~20% are scrapers with browser agents (rotating),
 * some ask for a static file now and then.
 *
 *   const { lines, labels } = generateTraffic({ seed: 1, people: 60, bots: 40, host: 'books.test', start, minutes: 60 });
 *
 * Book pages are /book/{id}/page/{n} (TRAFFIC_BOOK_PATTERN finds the book).
 */
import { prng } from '../../src/core/prng.js';

export interface TrafficOptions {
  seed: number;
  people: number;
  bots: number;
  host: string;
  /** Epoch seconds of the first possible line. */
  start: number;
  /** Length of the traffic (lines fall in [start, start + minutes * 60)). */
  minutes: number;
}

export interface Traffic {
  /** nginx `console` log lines, in time order (no trailing newlines). */
  lines: string[];
  /** Address -> 0 (person) or 1 (bot). */
  labels: Map<string, 0 | 1>;
}

/** The book of a URL of this traffic: group 1. */
export const TRAFFIC_BOOK_PATTERN = /^\/book\/(\d+)/;

/** mulberry32 (src/core/prng.ts, shared with the demo data and benchmarks). */
export { prng };

const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.0.0 Safari/537.36 Edg/123.0.0.0',
];
const LIBRARIES = [
  'curl/8.5.0', 'python-requests/2.31.0', 'Go-http-client/1.1', 'Wget/1.21.4', 'okhttp/4.12.0', 'Java/17.0.9', 'libwww-perl/6.72',
  'Scrapy/2.11.1 (+https://scrapy.org)', 'axios/1.6.8', 'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)', 'Python-urllib/3.11', '',
];
const CRAWLERS = [
  'Mozilla/5.0 (compatible; ExampleBot/2.1; +http://example.com/bot.html)',
  'Mozilla/5.0 (compatible; SomeCrawler/1.0; +https://crawler.example.net)',
  'Mozilla/5.0 (compatible; DataSpider/3.0)',
  'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
];
const SEARCH = ['https://www.google.com/', 'https://duckduckgo.com/', 'https://www.bing.com/', 'https://t.co/abc'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

interface Hit {
  t: number;
  seq: number;
  line: string;
}

const pad = (n: number) => String(n).padStart(2, '0');
function logTime(t: number): string {
  const d = new Date(t * 1000);
  return `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

export function generateTraffic(o: TrafficOptions): Traffic {
  const rnd = prng(o.seed);
  const int = (a: number, b: number) => a + Math.floor(rnd() * (b - a + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const end = o.start + o.minutes * 60;
  const hits: Hit[] = [];
  let seq = 0;
  const labels = new Map<string, 0 | 1>();
  const used = new Set<string>();
  const newIp = () => {
    for (;;) {
      const ip = `${int(11, 223)}.${int(0, 255)}.${int(0, 255)}.${int(1, 254)}`;
      if (!used.has(ip)) {
        used.add(ip);
        return ip;
      }
    }
  };
  const hit = (ip: string, t: number, method: string, url: string, code: number, ref: string, agent: string, rt: number) => {
    if (t >= end) return false;
    const bytes = code === 200 ? int(500, 60_000) : int(100, 600);
    const q = (s: string) => (s === '' ? '-' : s.replace(/["\\]/g, (c) => `\\x${c.charCodeAt(0).toString(16).toUpperCase()}`));
    hits.push({
      t,
      seq: seq++,
      line: `${ip} - - [${logTime(t)}] "${method} ${url} HTTP/1.1" ${code} ${bytes} "${q(ref)}" "${q(agent)}" "-" "${o.host}" ${rt.toFixed(3)} ${rt.toFixed(3)}`,
    });
    return true;
  };
  const site = `https://${o.host}`;

  // ---- people
  for (let i = 0; i < o.people; i++) {
    const ip = newIp();
    labels.set(ip, 0);
    const fast = rnd() < 0.1;
    const direct = rnd() < 0.15;
    const agents = rnd() < 0.15 ? [pick(BROWSERS), pick(BROWSERS)] : [pick(BROWSERS)];
    let t = o.start + int(0, Math.max(1, o.minutes * 60 - 300));
    let ref = direct ? '' : pick(SEARCH);
    let book = int(1, 5000);
    let page = int(1, 30);
    const pages = int(3, fast ? 40 : 20);
    let cached = false;
    for (let p = 0; p < pages; p++) {
      const agent = pick(agents);
      const r = rnd();
      let url: string;
      if (r < 0.6) url = `/book/${book}/page/${page++}`;
      else if (r < 0.7) url = `/book/${(book = int(1, 5000))}`;
      else if (r < 0.8) url = `/catalog?page=${int(1, 20)}`;
      else if (r < 0.88) url = `/author/${int(1, 900)}`;
      else if (r < 0.95) url = `/search?q=${['tolstoy', 'poems', 'history', 'sci-fi', 'detective'][int(0, 4)]}`;
      else url = '/';
      const code = rnd() < 0.04 ? 404 : 200;
      const method = rnd() < 0.02 ? 'POST' : 'GET';
      if (!hit(ip, t, method, url, code, ref, agent, 0.02 + rnd() * 0.25)) break;
      const assets = fast && cached ? (rnd() < 0.3 ? 1 : 0) : int(2, 4);
      for (let a = 0; a < assets; a++) {
        const asset = pick(['/static/app.css', '/static/app.js', `/img/cover-${book}.jpg`, '/static/font.woff2', '/favicon.ico']);
        hit(ip, t + (rnd() < 0.7 ? 0 : 1), 'GET', asset, rnd() < 0.03 ? 404 : 200, direct && rnd() < 0.5 ? '' : site + url, agent, 0.001 + rnd() * 0.01);
      }
      cached = true;
      ref = direct && rnd() < 0.6 ? '' : site + url;
      t += fast ? int(3, 10) : int(20, 120);
    }
  }

  // ---- bots
  for (let i = 0; i < o.bots; i++) {
    const ip = newIp();
    labels.set(ip, 1);
    const kind = rnd();
    const slow = rnd() < 0.2;
    const scraper = kind < 0.2; // browser agents
    const crawler = !scraper && kind < 0.45; // declared
    const agents = scraper ? (rnd() < 0.5 ? [pick(BROWSERS)] : [pick(BROWSERS), pick(BROWSERS), pick(BROWSERS)]) : [crawler ? pick(CRAWLERS) : pick(LIBRARIES)];
    let t = o.start + int(0, Math.max(1, o.minutes * 60 - 600));
    const n = slow ? int(8, 40) : int(40, 400);
    const fakeRef = scraper && rnd() < 0.3;
    for (let k = 0; k < n; k++) {
      const r = rnd();
      let url: string;
      if (r < 0.6) url = `/book/${int(1, 5000)}/page/${int(1, 300)}`;
      else if (r < 0.75) url = `/book/${int(1, 5000)}`;
      else if (r < 0.85) url = `/author/${int(1, 900)}/books/${int(1, 9)}/list/${int(1, 50)}`;
      else if (r < 0.92) url = `/catalog/${int(1, 99)}/${int(1, 99)}/${int(1, 99)}?sort=${pick(['new', 'old', 'az'])}`;
      else if (r < 0.96) url = pick(['/wp-login.php', '/.env', '/admin/config.php', '/xmlrpc.php', '/backup.zip']);
      else url = pick(['/static/app.css', `/img/cover-${int(1, 5000)}.jpg`]);
      const code = url.startsWith('/wp') || url.startsWith('/.env') || url.startsWith('/admin') || url.startsWith('/backup') || rnd() < 0.08 ? 404 : rnd() < 0.02 ? 503 : 200;
      const m = rnd();
      const method = scraper ? 'GET' : m < 0.12 ? 'HEAD' : m < 0.2 ? 'POST' : 'GET';
      const ref = fakeRef ? site + '/' : '';
      if (!hit(ip, Math.floor(t), method, url, code, ref, pick(agents), 0.05 + rnd() * (slow ? 0.5 : 1.2))) break;
      t += slow ? int(20, 60) : rnd() * (scraper ? 6 : 2);
    }
  }

  hits.sort((a, b) => a.t - b.t || a.seq - b.seq);
  return { lines: hits.map((h) => h.line), labels };
}
