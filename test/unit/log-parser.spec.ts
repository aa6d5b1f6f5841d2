/**
 * The nginx access-log parser (src/modules/firewall/worker/log-parser.ts) and its worker pool: the real
 * fixture against GoAccess's figures, the combined / main / console formats, escapes, IPv6, bad lines,
 * tags, chunks cut at every byte, offsets at line boundaries, and the worker thread keeping the event
 * loop free.
 */
import { jest } from '@jest/globals';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { classifyRequest, LOG_BAD_SAMPLE_MAX, NGINX_LOG_FORMAT_LINE, type AccessLogEntry, type LogBadLine } from '../../src/contracts/firewall.js';
import { LogParsePool, resolveLogParseWorker } from '../../src/modules/firewall/worker/log-parse.pool.js';
import { finishChunk, initialParseState, IpCounter, LogStreamParser, parseChunk, type LogBatch, type LogSource } from '../../src/modules/firewall/worker/log-parser.js';

const FIXTURE = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'access-combined-10k.log'));
const SRC: LogSource = { proxy_addr: '10.0.0.9' };
const bytes = (s: string) => Buffer.from(s, 'latin1');

interface Parsed {
  rows: AccessLogEntry[];
  bad: number;
  samples: LogBadLine[];
  offsets: number[];
  end: number;
}

/** Feeds `data` cut at `cuts` (ascending byte positions), then finishes; collects everything. */
function parsePieces(data: Buffer, cuts: number[], opts = {}): Parsed {
  const p = new LogStreamParser(0, opts);
  const out: Parsed = { rows: [], bad: 0, samples: [], offsets: [], end: 0 };
  const take = (b: LogBatch) => {
    out.rows.push(...b.toEntries(SRC));
    out.bad += b.bad;
    out.samples.push(...b.badSamples);
    for (let i = 0; i < b.length; i++) out.offsets.push(b.offsetOf(i));
  };
  let at = 0;
  for (const c of [...cuts, data.length]) {
    take(p.push(Buffer.from(data.subarray(at, c))));
    at = c;
  }
  take(p.finish());
  out.end = p.state.offset;
  return out;
}
const parseWhole = (data: Buffer, opts = {}) => parsePieces(data, [], opts);

const T = '[21/Nov/2026:10:00:00 +0300]'; // 07:00:00 UTC
const T_EPOCH = Date.UTC(2026, 10, 21, 7, 0, 0) / 1000;
const UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';
const COMBINED = `203.0.113.7 - - ${T} "GET /book/42?x=1 HTTP/1.1" 200 5120 "https://example.org/" "${UA}"`;
const MAIN = `203.0.113.8 - bob ${T} "POST /api/v1/save HTTP/1.1" 201 12 "-" "${UA}" "198.51.100.77"`;
const CONSOLE = `203.0.113.9 - - ${T} "GET /feed HTTP/2.0" 200 900 "-" "${UA}" "198.51.100.1, 10.0.0.2" "books.example.org" 0.001, 0.002 0.015`;
const CONSOLE_DASHES = `203.0.113.10 - - ${T} "HEAD / HTTP/1.0" 301 0 "-" "-" "-" "-" - 0.000`;
const CONSOLE_REDIRECT = `203.0.113.11 - - ${T} "GET /a.css HTTP/1.1" 200 10 "-" "${UA}" "-" "cdn.example.org" 0.010 : - : 0.004 0.020`;
const IPV6 = `2001:DB8::1 - - ${T} "GET /page HTTP/1.1" 200 10 "-" "${UA}"`;
const MAPPED = `::ffff:192.0.2.5 - - ${T} "GET /page HTTP/1.1" 200 10 "-" "${UA}"`;
const APACHE_ESCAPES = `203.0.113.12 - - ${T} "GET /q?s=\\"hi\\" HTTP/1.1" 200 10 "http://x/\\\\" "Agent \\"quoted\\" end"`;
const NGINX_ESCAPES = `203.0.113.13 - - ${T} "GET /q?s=\\x22hi\\x22 HTTP/1.1" 200 10 "-" "curl/8.5 \\x22x\\x22 \\xD0\\xBF"`;
const TLS_PROBE = `198.51.100.23 - - ${T} "\\x16\\x03\\x01\\x00\\xCA\\x01" 400 157 "-" "-"`;
const EMPTY_REQUEST = `198.51.100.24 - - ${T} "" 400 0 "-" "-"`;

describe('the fixture (real combined log) against GoAccess 1.7', () => {
  const r = parseWhole(FIXTURE);

  test('10,000 lines, no bad line, offset at the end of the file', () => {
    expect(r.rows).toHaveLength(10_000);
    expect(r.bad).toBe(0);
    expect(r.end).toBe(FIXTURE.length);
  });

  test('hosts: 1753 addresses, 66.249.73.135 with 482 hits (GoAccess hosts panel)', () => {
    const c = new IpCounter();
    const { batch } = parseChunk(FIXTURE);
    c.add(batch);
    expect(c.size).toBe(1753);
    expect(c.count('66.249.73.135')).toBe(482);
    expect(c.entries(3)).toEqual([{ ip: '66.249.73.135', count: 482 }, { ip: '46.105.14.53', count: 364 }, { ip: '130.237.218.86', count: 357 }]);
    for (const k of [1, 10, 200, 1752, 1753, 5000]) expect(c.entries(k)).toEqual(c.entries().slice(0, k));
    expect(new Set(r.rows.map((e) => e.ip)).size).toBe(1753);
  });

  test("2095 unique visitors as GoAccess counts them: (day, address, agent without blanks) of non-4xx lines", () => {
    const visitors = new Set(r.rows.filter((e) => e.code < 400 || e.code >= 500).map((e) => `${e.date}|${e.ip}|${e.agent.replace(/ /g, '')}`));
    expect(visitors.size).toBe(2095);
  });

  test('the first line as an entry; the line whose agent lost its closing quote is kept', () => {
    expect(r.rows[0]).toEqual({
      ip: '83.149.9.216', forward: '', date: '2015-05-17', time: '10:05:03', stime: Date.UTC(2015, 4, 17, 10, 5, 3) / 1000,
      upstream_response_time: '', request_time: null, method: 'GET', url: '/presentations/logstash-monitorama-2013/images/kibana-search.png',
      code: 200, ref: 'http://semicomplete.com/presentations/logstash-monitorama-2013/',
      agent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_9_1) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/32.0.1700.77 Safari/537.36',
      proxy_host: '10.0.0.9', proxy_addr: '10.0.0.9', tag: 'static',
    });
    const cut = r.rows.find((e) => e.ip === '46.118.127.106' && e.url === '/scripts/grok-py-test/configlib.py')!;
    expect(cut.agent).toBe('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html');
    expect(cut.tag).toBe('bot');
  });

  test('every tag occurs; Googlebot is a bot, rss pulls are feeds', () => {
    const tags = new Map<string, number>();
    for (const e of r.rows) tags.set(e.tag, (tags.get(e.tag) ?? 0) + 1);
    expect([...tags.keys()].sort()).toEqual(['bot', 'feed', 'page', 'static']); // no /api/ in this site's log
    expect(r.rows.filter((e) => e.ip === '66.249.73.135').every((e) => e.tag === 'bot' || e.tag === 'feed')).toBe(true);
    expect(r.rows.filter((e) => e.url === '/?flav=rss20').every((e) => e.tag === 'feed')).toBe(true);
  });
});

describe('formats', () => {
  const all = [COMBINED, MAIN, CONSOLE, CONSOLE_DASHES, CONSOLE_REDIRECT].join('\n') + '\n';
  const { batch } = parseChunk(bytes(all));

  test('combined, main and console recognised per line', () => {
    expect(batch.length).toBe(5);
    expect(batch.bad).toBe(0);
    expect([0, 1, 2, 3, 4].map((i) => batch.format(i))).toEqual(['combined', 'main', 'console', 'console', 'console']);
    expect(batch.data.formats).toEqual({ combined: 1, main: 1, console: 3 });
  });

  test('the console line: forwarded-for, host, several upstream times, request time; UTC date and time', () => {
    expect(batch.row(2, SRC)).toEqual({
      ip: '203.0.113.9', forward: '198.51.100.1, 10.0.0.2', date: '2026-11-21', time: '07:00:00', stime: T_EPOCH,
      upstream_response_time: '0.001, 0.002', request_time: 0.015, method: 'GET', url: '/feed', code: 200, ref: '', agent: UA,
      proxy_host: 'books.example.org', proxy_addr: '10.0.0.9', tag: 'feed',
    });
    expect(batch.upstreamSeconds(2)).toBeCloseTo(0.003, 9);
  });

  test("'-' values: empty strings, null times, the proxy's address as host; an empty agent is a bot", () => {
    const e = batch.row(3, SRC);
    expect(e).toMatchObject({ forward: '', ref: '', agent: '', proxy_host: '10.0.0.9', upstream_response_time: '', request_time: 0, method: 'HEAD', url: '/', code: 301, tag: 'bot' });
    expect(batch.upstreamSeconds(3)).toBeNull();
    expect(batch.row(3, { proxy_addr: '10.0.0.9', proxy_host: 'default.example' }).proxy_host).toBe('default.example');
  });

  test("an internal redirect's upstream times (' : ', '-') and the main format's forwarded-for", () => {
    expect(batch.row(4, SRC)).toMatchObject({ upstream_response_time: '0.010 : - : 0.004', request_time: 0.02, proxy_host: 'cdn.example.org', forward: '', tag: 'static' });
    expect(batch.upstreamSeconds(4)).toBeCloseTo(0.014, 9);
    expect(batch.row(1, SRC)).toMatchObject({ forward: '198.51.100.77', proxy_host: '10.0.0.9', request_time: null, upstream_response_time: '', method: 'POST', code: 201, tag: 'api' });
    expect(batch.row(0, SRC)).toMatchObject({ forward: '', proxy_host: '10.0.0.9', method: 'GET', url: '/book/42?x=1', ref: 'https://example.org/', tag: 'page' });
  });

  test('the log_format line of the docs writes what the console format reads', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'firewall.md'), 'utf8');
    expect(doc).toContain(NGINX_LOG_FORMAT_LINE);
    // the variables in the order the parser expects them
    expect(NGINX_LOG_FORMAT_LINE).toMatch(/"\$http_user_agent" "\$http_x_forwarded_for" "\$host" \$upstream_response_time \$request_time';$/);
  });

  test('time zones: the offset is applied to stime; date and time are UTC', () => {
    const line = (tz: string) => `1.2.3.4 - - [01/Jan/2027:01:30:00 ${tz}] "GET / HTTP/1.1" 200 1 "-" "${UA}"\n`;
    const east = parseChunk(bytes(line('+0530'))).batch.row(0, SRC);
    const west = parseChunk(bytes(line('-0800'))).batch.row(0, SRC);
    expect(east).toMatchObject({ stime: Date.UTC(2026, 11, 31, 20, 0, 0) / 1000, date: '2026-12-31', time: '20:00:00' });
    expect(west).toMatchObject({ stime: Date.UTC(2027, 0, 1, 9, 30, 0) / 1000, date: '2027-01-01', time: '09:30:00' });
  });
});

describe("real nginx 1.22 output (Debian's nginx, the same requests in console and combined)", () => {
  const read = (f: string) => parseChunk(readFileSync(join(import.meta.dirname, '..', 'fixtures', f))).batch;
  const con = read('nginx-console.log');
  const comb = read('nginx-combined.log');
  const pick = (e: AccessLogEntry) => [e.ip, e.method, e.url, e.code, e.ref, e.agent, e.stime, e.tag];

  test('every line parses; the shared fields agree between the two formats', () => {
    expect([con.length, con.bad, comb.length, comb.bad]).toEqual([11, 0, 11, 0]);
    expect(con.data.formats.console).toBe(11);
    expect(comb.data.formats.combined).toBe(11);
    expect(con.toEntries(SRC).map(pick)).toEqual(comb.toEntries(SRC).map(pick));
  });

  test("nginx's \\xHH escapes, forwarded-for, host, upstream lists and redirects", () => {
    expect(con.row(1, SRC)).toMatchObject({
      url: '/up?q=%22x', ref: 'http://ref/п', agent: 'Agent "quoted" \\ back', forward: '198.51.100.1, 10.0.0.2',
      proxy_host: 'books.example.org', upstream_response_time: '0.000', request_time: 0, tag: 'page',
    });
    expect(con.row(2, SRC).upstream_response_time).toBe('0.000, 0.000');
    expect(con.row(4, SRC)).toMatchObject({ upstream_response_time: '0.000 : 0.000', request_time: 0.001 });
    expect(con.row(5, SRC)).toMatchObject({ ip: '::1', proxy_host: '[::1]', upstream_response_time: '' });
    expect(con.row(7, SRC).tag).toBe('feed');
    // a bad request has an empty $host: the proxy's address stands in
    expect(con.toEntries(SRC).slice(8).map((e) => [e.method, e.url.length > 0, e.code, e.proxy_host])).toEqual([
      ['', true, 400, '10.0.0.9'], ['GET', true, 400, '10.0.0.9'], ['', false, 400, '10.0.0.9'],
    ]);
    expect(con.row(9, SRC).url).toBe('/a b c');
  });
});

describe('addresses, escapes and odd requests', () => {
  test('IPv6 clients (lower-cased), IPv4-mapped IPv6 counted as IPv4', () => {
    const { batch } = parseChunk(bytes(`${IPV6}\n${MAPPED}\n`));
    expect(batch.bad).toBe(0);
    expect(batch.ip(0)).toBe('2001:db8::1');
    expect(batch.isV6(0)).toBe(true);
    expect(batch.ip(1)).toBe('192.0.2.5');
    expect(batch.isV6(1)).toBe(false);
    const c = new IpCounter();
    c.add(batch);
    expect(c.count('2001:db8::1')).toBe(1);
    expect(c.count('192.0.2.5')).toBe(1);
  });

  test('escaped quotes and backslashes (\\" and \\\\ of Apache / escape=json, \\xHH of nginx incl. UTF-8)', () => {
    const { batch } = parseChunk(bytes(`${APACHE_ESCAPES}\n${NGINX_ESCAPES}\n`));
    expect(batch.bad).toBe(0);
    expect(batch.row(0, SRC)).toMatchObject({ url: '/q?s="hi"', ref: 'http://x/\\', agent: 'Agent "quoted" end', method: 'GET' });
    expect(batch.row(1, SRC)).toMatchObject({ url: '/q?s="hi"', agent: 'curl/8.5 "x" п', tag: 'bot' });
  });

  test('a TLS handshake sent to the HTTP port and an empty request: kept, with no method', () => {
    const { batch } = parseChunk(bytes(`${TLS_PROBE}\n${EMPTY_REQUEST}\n`));
    expect(batch.bad).toBe(0);
    expect(batch.row(0, SRC)).toMatchObject({ method: '', code: 400, agent: '', tag: 'bot' });
    expect(batch.row(0, SRC).url).toBe(Buffer.from([0x16, 0x03, 0x01, 0x00, 0xca, 0x01]).toString('utf8'));
    expect(batch.row(1, SRC)).toMatchObject({ method: '', url: '', code: 400 });
  });

  test('CRLF line ends and blank lines', () => {
    const { batch } = parseChunk(bytes(`${COMBINED}\r\n\r\n\n${CONSOLE}\r\n`));
    expect(batch.length).toBe(2);
    expect(batch.bad).toBe(0);
    expect(batch.row(0, SRC).agent).toBe(UA);
    expect(batch.row(1, SRC).request_time).toBe(0.015);
  });
});

describe('bad lines', () => {
  const BAD = [
    ['garbage', 'address'],
    [`300.1.2.3 - - ${T} "GET / HTTP/1.1" 200 1 "-" "-"`, 'address'],
    [`unix: - - ${T} "GET / HTTP/1.1" 200 1 "-" "-"`, 'address'],
    [`1.2.3.4 - - [21/Nov/2026 10:00:00] "GET / HTTP/1.1" 200 1 "-" "-"`, 'time'],
    [`1.2.3.4 - - [21/Xyz/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "-"`, 'time'],
    [`1.2.3.4 - - ${T} GET / HTTP/1.1 200 1 "-" "-"`, 'request'],
    [`1.2.3.4 - - ${T} "GET / HTTP/1.1" OK 1 "-" "-"`, 'status'],
    [`1.2.3.4 - - ${T} "GET / HTTP/1.1`, 'quote'],
    [`1.2.3.4 - - ${T} "GET / HTTP/1.1" 200 1 "-`, 'quote'],
    [`1.2.3.4 - - ${T} "GET / HTTP/1.1" 200 1 "-" "ua" trailing words`, 'tail'],
    [`1.2.3.4 - - ${T} "GET / HTTP/1.1" 200 1 "-" "ua" "-" "h" 0.1 fast`, 'tail'],
  ] as const;

  test('each is counted with its reason and offset, never thrown; the good lines around them parse', () => {
    const text = [COMBINED, ...BAD.map(([l]) => l), CONSOLE].join('\n') + '\n';
    const r = parseWhole(bytes(text));
    expect(r.rows.map((e) => e.ip)).toEqual(['203.0.113.7', '203.0.113.9']);
    expect(r.bad).toBe(BAD.length);
    expect(r.samples.slice(0, LOG_BAD_SAMPLE_MAX).map((s) => [s.text, s.reason])).toEqual(BAD.slice(0, LOG_BAD_SAMPLE_MAX).map(([l, why]) => [l, why]));
    let at = COMBINED.length + 1;
    for (let k = 0; k < LOG_BAD_SAMPLE_MAX; k++) {
      expect(r.samples[k].offset).toBe(at);
      at += BAD[k][0].length + 1;
    }
  });

  test('the sample is bounded per batch, the count is not', () => {
    const text = Array.from({ length: 500 }, (_, i) => `bad line ${i}`).join('\n') + '\n';
    const { batch } = parseChunk(bytes(text));
    expect(batch.bad).toBe(500);
    expect(batch.badSamples).toHaveLength(LOG_BAD_SAMPLE_MAX);
    expect(batch.length).toBe(0);
  });

  test('a line over the limit is skipped across chunks without being held, then parsing goes on', () => {
    const long = `1.2.3.4 - - ${T} "GET /${'a'.repeat(400)} HTTP/1.1" 200 1 "-" "-"`;
    const data = bytes(`${COMBINED}\n${long}\n${CONSOLE}\n`);
    const cuts = Array.from({ length: Math.floor(data.length / 30) }, (_, i) => (i + 1) * 30);
    const p = new LogStreamParser(0, { maxLineBytes: 300 });
    let bad: LogBadLine[] = [];
    const rows: AccessLogEntry[] = [];
    let at = 0;
    let maxCarry = 0;
    for (const c of [...cuts, data.length]) {
      const b = p.push(Buffer.from(data.subarray(at, c)));
      rows.push(...b.toEntries(SRC));
      bad = bad.concat(b.badSamples);
      maxCarry = Math.max(maxCarry, p.state.carry?.byteLength ?? 0);
      at = c;
    }
    expect(rows.map((e) => e.ip)).toEqual(['203.0.113.7', '203.0.113.9']);
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({ reason: 'long', offset: COMBINED.length + 1 });
    expect(long.startsWith(bad[0].text.slice(0, 50))).toBe(true);
    expect(maxCarry).toBeLessThanOrEqual(300 * 4);
    expect(p.state).toEqual({ offset: data.length, carry: null, skipped: 0 });
  });
});

describe('streaming: chunks of any size, offsets at line boundaries', () => {
  const sample = bytes(
    [COMBINED, MAIN, CONSOLE, 'garbage here', CONSOLE_DASHES, APACHE_ESCAPES, NGINX_ESCAPES, IPV6, CONSOLE_REDIRECT].join('\n') + '\r\n' +
    Buffer.from(`1.2.3.4 - - ${T} "GET /\\xD0\\xBF HTTP/1.1" 200 1 "-" "Агент"\n`, 'utf8').toString('latin1'),
  );
  const whole = parseWhole(sample);

  test('the reference parse', () => {
    expect(whole.rows).toHaveLength(9);
    expect(whole.bad).toBe(1);
    expect(whole.rows[8]).toMatchObject({ url: '/п', agent: 'Агент' });
  });

  test('cut at every byte boundary: identical rows, bad lines, line offsets and end', () => {
    for (let k = 0; k <= sample.length; k++) {
      const r = parsePieces(sample, [k]);
      if (JSON.stringify(r) !== JSON.stringify(whole)) throw new Error(`differs when cut at byte ${k}`);
    }
  });

  test('cut at every pair of boundaries (a line spread over three chunks)', () => {
    const part = sample.subarray(0, COMBINED.length + MAIN.length + CONSOLE.length + 3);
    const ref = parseWhole(part);
    expect(ref.rows).toHaveLength(3);
    for (let i = 0; i <= part.length; i++) {
      for (let j = i; j <= part.length; j += 17) {
        const r = parsePieces(part, [i, j]);
        if (JSON.stringify(r) !== JSON.stringify(ref)) throw new Error(`differs when cut at ${i} and ${j}`);
      }
    }
  });

  test('one byte at a time', () => {
    expect(parsePieces(sample, Array.from({ length: sample.length - 1 }, (_, i) => i + 1))).toEqual(whole);
  });

  test('the fixture in 4 KiB chunks equals the fixture in one piece', () => {
    const cuts = Array.from({ length: Math.floor(FIXTURE.length / 4096) }, (_, i) => (i + 1) * 4096);
    const r = parsePieces(FIXTURE, cuts);
    expect(r.rows).toHaveLength(10_000);
    expect(JSON.stringify(r)).toBe(JSON.stringify(parseWhole(FIXTURE)));
  });

  test('reuse: one set of columns for every push gives the same rows when each batch is used before the next push', () => {
    const p = new LogStreamParser(0, { reuse: true });
    const rows: AccessLogEntry[] = [];
    const c = new IpCounter();
    let first: LogBatch | null = null;
    for (let at = 0; at < FIXTURE.length; at += 4096) {
      const b = p.push(Buffer.from(FIXTURE.subarray(at, at + 4096)));
      first ??= b;
      rows.push(...b.toEntries(SRC));
      c.add(b);
    }
    expect(rows).toHaveLength(10_000);
    expect(JSON.stringify(rows)).toBe(JSON.stringify(parseWhole(FIXTURE).rows));
    expect(c.count('66.249.73.135')).toBe(482);
    // documented: an earlier batch's columns have been overwritten by later pushes
    expect(first!.stime[0]).not.toBe(rows[0].stime);
  });

  test('state.offset is always just after a newline; resuming from it loses and repeats nothing', () => {
    const lineStarts = new Set([0]);
    for (let i = 0; i < sample.length; i++) if (sample[i] === 10) lineStarts.add(i + 1);
    for (const cut of [1, 50, COMBINED.length, COMBINED.length + 1, 400, sample.length - 5]) {
      // a first reader stops after `cut` bytes and persists its offset
      const first = parseChunk(Buffer.from(sample.subarray(0, cut)), initialParseState(0));
      expect(lineStarts.has(first.state.offset)).toBe(true);
      expect(first.batch.endOffset).toBe(first.state.offset);
      // a second reader (after a restart) reads from that offset to the end
      const second = parseChunk(Buffer.from(sample.subarray(first.state.offset)), initialParseState(first.state.offset));
      const rest = finishChunk(second.state);
      const rows = [...first.batch.toEntries(SRC), ...second.batch.toEntries(SRC), ...rest.batch.toEntries(SRC)];
      expect(rows).toEqual(whole.rows);
      expect(first.batch.bad + second.batch.bad + rest.batch.bad).toBe(1);
      expect(rest.state.offset).toBe(sample.length);
    }
  });

  test('a last line without a newline waits for more bytes; finish() takes it', () => {
    const data = bytes(`${COMBINED}\n${CONSOLE}`);
    const p = new LogStreamParser();
    expect(p.push(Buffer.from(data)).length).toBe(1);
    expect(p.state.offset).toBe(COMBINED.length + 1);
    expect(p.state.carry?.byteLength).toBe(CONSOLE.length);
    const last = p.finish();
    expect(last.length).toBe(1);
    expect(last.row(0, SRC).proxy_host).toBe('books.example.org');
    expect(last.offsetOf(0)).toBe(COMBINED.length + 1);
    expect(p.state).toEqual({ offset: data.length, carry: null, skipped: 0 });
  });
});

describe('tags', () => {
  test.each([
    ['/feed', UA, 'feed'],
    ['/blog/rss.xml', UA, 'feed'],
    ['/blog/tags/puppet?flav=rss20', 'Googlebot/2.1', 'feed'],
    ['/?format=atom', UA, 'feed'],
    ['/sitemap.xml', UA, 'feed'],
    ['/', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'bot'],
    ['/style.css', 'curl/8.5.0', 'bot'],
    ['/index.html', '', 'bot'],
    ['/index.html', 'python-requests/2.31', 'bot'],
    ['/img/a.PNG?v=2', UA, 'static'],
    ['/app.js#x', UA, 'static'],
    ['/book.epub', UA, 'static'],
    ['/api/v1/books', UA, 'api'],
    ['/api', UA, 'api'],
    ['/data/list.json', UA, 'api'],
    ['/wp-json/wp/v2/posts', UA, 'api'],
    ['/book/42', UA, 'page'],
    ['/feedback', UA, 'page'],
    ['/apiary', UA, 'page'],
  ])('%s by %s is %s', (url, agent, tag) => {
    expect(classifyRequest(url, agent)).toBe(tag);
  });
});

describe('IpCounter', () => {
  test('matches a Map over 20,000 addresses (table growth) plus IPv6 and 0.0.0.0', () => {
    const lines: string[] = [];
    const expected = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      const ip = i % 997 === 0 ? `2001:db8::${(i % 5).toString(16)}` : i === 1 ? '0.0.0.0' : `${(i * 7919) % 223 + 1}.${i % 256}.${(i >> 8) % 256}.${i % 3}`;
      const hits = (i % 3) + 1;
      for (let h = 0; h < hits; h++) lines.push(`${ip} - - ${T} "GET / HTTP/1.1" 200 1 "-" "${UA}"`);
      expected.set(ip, (expected.get(ip) ?? 0) + hits);
    }
    const c = new IpCounter();
    const p = new LogStreamParser();
    const data = Buffer.from(lines.join('\n') + '\n');
    for (let at = 0; at < data.length; at += 1 << 16) c.add(p.push(Buffer.from(data.subarray(at, at + (1 << 16)))));
    expect(c.size).toBe(expected.size);
    const sorted = (m: Iterable<[string, number]>) => JSON.stringify([...m].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
    expect(sorted(c.entries().map((e) => [e.ip, e.count] as [string, number]))).toBe(sorted(expected));
    const counts = c.entries().map((e) => e.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });
});

describe('worker pool', () => {
  jest.setTimeout(120_000);
  let pool: LogParsePool;
  beforeAll(() => {
    pool = new LogParsePool({ size: 2 });
  });
  afterAll(async () => {
    await pool.close();
  });

  test('the worker is the compiled .js beside the pool when there is one, else the .ts through a hook', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lpw-'));
    const base = pathToFileURL(join(dir, 'log-parse.pool.js')).href;
    expect(() => resolveLogParseWorker(base)).toThrow(/not found/);
    writeFileSync(join(dir, 'log-parse.worker.js'), '');
    expect(resolveLogParseWorker(base).href).toBe(pathToFileURL(join(dir, 'log-parse.worker.js')).href);
    // here (ts-jest runs the sources) the default is the .ts entry behind a data: bootstrap
    const here = resolveLogParseWorker();
    expect(here.protocol).toBe('data:');
    expect(decodeURIComponent(here.href)).toContain('log-parse.worker.ts');
  });

  test('parses the fixture in chunks exactly as in-process, transferring each chunk', async () => {
    let state = initialParseState();
    const rows: AccessLogEntry[] = [];
    let bad = 0;
    for (let at = 0; at < FIXTURE.length; at += 100_000) {
      const chunk = new Uint8Array(FIXTURE.subarray(at, at + 100_000));
      const r = await pool.parse(chunk, state);
      expect(chunk.byteLength).toBe(0); // transferred, not copied
      rows.push(...r.batch.toEntries(SRC));
      bad += r.batch.bad;
      state = r.state;
    }
    const last = await pool.finish(state);
    expect(last.batch.length).toBe(0);
    expect(bad).toBe(0);
    expect(state.offset).toBe(FIXTURE.length);
    expect(rows).toHaveLength(10_000);
    expect(JSON.stringify(rows)).toBe(JSON.stringify(parseWhole(FIXTURE).rows));
  });

  test('a chunk that does not own its memory is copied, the caller keeps it', async () => {
    const view = FIXTURE.subarray(0, 5000);
    const r = await pool.parse(view, null);
    expect(view.byteLength).toBe(5000);
    expect(r.batch.row(0, SRC).ip).toBe('83.149.9.216');
  });

  test('two streams in parallel on two workers', async () => {
    const half = Math.floor(FIXTURE.length / 2);
    const run = async (data: Buffer) => {
      let state = initialParseState();
      const c = new IpCounter();
      for (let at = 0; at < data.length; at += 65_536) {
        const r = await pool.parse(new Uint8Array(data.subarray(at, at + 65_536)), state);
        c.add(r.batch);
        state = r.state;
      }
      c.add((await pool.finish(state)).batch);
      return c;
    };
    const [a, b] = await Promise.all([run(FIXTURE.subarray(0, half)), run(FIXTURE.subarray(half))]);
    expect(a.count('66.249.73.135') + b.count('66.249.73.135')).toBe(482);
    expect(pool.stats()).toEqual({ workers: 2, busy: 0, queued: 0 });
  });

  test('the event loop keeps running while a large chunk is parsed (it stops when parsed in-process)', async () => {
    const big = Buffer.concat(Array.from({ length: 30 }, () => FIXTURE)); // 300,000 lines, 71 MB
    const ticksDuring = async (work: () => unknown) => {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 1);
      try {
        await work();
      } finally {
        clearInterval(timer);
      }
      return ticks;
    };
    let lines = 0;
    const inWorker = await ticksDuring(async () => {
      lines = (await pool.parse(new Uint8Array(big), null)).batch.length;
    });
    expect(lines).toBe(300_000);
    expect(inWorker).toBeGreaterThanOrEqual(10);
    const inProcess = await ticksDuring(() => parseChunk(big).batch.length);
    expect(inProcess).toBe(0);
  });

  test('a worker that cannot start fails the call with a message, and the pool stays usable', async () => {
    const broken = new LogParsePool({ size: 1, workerUrl: new URL('data:text/javascript,' + encodeURIComponent('throw new Error("boom")')) });
    await expect(broken.parse(new Uint8Array(FIXTURE.subarray(0, 1000)), null)).rejects.toThrow(/log parse worker failed: boom/);
    await expect(broken.parse(new Uint8Array(FIXTURE.subarray(0, 1000)), null)).rejects.toThrow(/boom/);
    expect(broken.stats().workers).toBe(0);
    await broken.close();
    await expect(broken.parse(new Uint8Array(10), null)).rejects.toThrow(/closed/);
  });
});
