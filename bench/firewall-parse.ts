/**
 * The nginx access-log parser on 1,000,000 lines built from the fixture (100 copies, the client
 * addresses varied per copy), one core, beside in the same run: a plain newline count, a readline +
 * regular expression + Map-of-strings parser (the obvious way), the worker pool (event loop delay of
 * the caller meanwhile), and GoAccess 1.7 (Debian's `goaccess`, installed when missing) on the same
 * file. Each measure runs in its own process so that its peak RSS is its own.
 * Run: `npm run bench -- firewall-parse`.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, createReadStream, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { LogParsePool } from '../src/modules/firewall/worker/log-parse.pool.js';
import { initialParseState, IpCounter, LogStreamParser } from '../src/modules/firewall/worker/log-parser.js';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'access-combined-10k.log');
const FILE = join(ROOT, 'bench', '.tmp', 'access-1m.log');
const COPIES = 100;
const CHUNK = 1 << 20;
/** Chunks of the pool / in-process comparison: large enough (about 35,000 lines) for a parse to block a loop visibly. */
const BIG_CHUNK = 8 << 20;
const SELF = fileURLToPath(import.meta.url);

interface ChildResult {
  mode: string;
  lines: number;
  bad: number;
  ips: number;
  top: string;
  cpu: number;
  wall: number;
  rssMb: number;
}

// ---------------------------------------------------------------------------------------------
// Child: one measure, reading the file in 1 MiB chunks into one reused buffer

function cpuSeconds(since: NodeJS.CpuUsage) {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1e6;
}

async function child(mode: string, file: string): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let lines = 0;
  let bad = 0;
  let ips = 0;
  let top = '';
  if (mode === 'regex') {
    // the obvious way: one string per line, one regular expression, a Map keyed by address strings
    const re = /^(\S+) \S+ \S+ \[([^\]]+)\] "(\S+) (\S+)[^"]*" (\d{3}) (\S+) "([^"]*)" "([^"]*)"?/;
    const hits = new Map<string, number>();
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
      const m = re.exec(line);
      if (!m) {
        bad++;
        continue;
      }
      lines++;
      hits.set(m[1], (hits.get(m[1]) ?? 0) + 1);
    }
    ips = hits.size;
    let best = 0;
    for (const [ip, n] of hits) if (n > best) [best, top] = [n, `${ip} ${n}`];
  } else {
    const fd = openSync(file, 'r');
    const buf = Buffer.allocUnsafeSlow(CHUNK);
    const parser = new LogStreamParser(0, { reuse: true }); // batch and buffer are used up before the next read
    const counter = new IpCounter();
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      const chunk = buf.subarray(0, n);
      if (mode === 'lines') {
        for (let p = chunk.indexOf(10); p >= 0; p = chunk.indexOf(10, p + 1)) lines++;
        continue;
      }
      const batch = parser.push(chunk);
      lines += batch.length;
      bad += batch.bad;
      if (mode === 'count' || mode === 'entries') counter.add(batch);
      if (mode === 'entries') {
        for (let i = 0; i < batch.length; i += 5000) batch.toEntries({ proxy_addr: '10.0.0.1' }, i, Math.min(batch.length, i + 5000));
      }
    }
    closeSync(fd);
    if (mode !== 'lines') {
      const last = parser.finish();
      lines += last.length;
      bad += last.bad;
      counter.add(last);
      ips = counter.size;
      const [t] = counter.entries(1);
      if (t) top = `${t.ip} ${t.count}`;
    }
  }
  const result: ChildResult = { mode, lines, bad, ips, top, cpu: cpuSeconds(cpu0), wall: (performance.now() - t0) / 1000, rssMb: process.resourceUsage().maxRSS / 1024 };
  process.stdout.write(JSON.stringify(result));
}

// ---------------------------------------------------------------------------------------------
// Parent

/** 100 copies of the fixture; copy k moves the second octet of every address by 7k. */
function buildFile() {
  if (existsSync(FILE) && statSync(FILE).mtimeMs > statSync(FIXTURE).mtimeMs && statSync(FILE).size > 200e6) return;
  mkdirSync(join(ROOT, 'bench', '.tmp'), { recursive: true });
  const src = readFileSync(FIXTURE, 'latin1').split('\n').filter((l) => l);
  const fd = openSync(FILE, 'w');
  for (let k = 0; k < COPIES; k++) {
    const out = src.map((l) => l.replace(/^(\d+)\.(\d+)\./, (_m, a: string, b: string) => `${a}.${(Number(b) + 7 * k) % 256}.`));
    writeSync(fd, out.join('\n') + '\n', null, 'latin1');
  }
  closeSync(fd);
}

function runChild(mode: string): ChildResult {
  const r = spawnSync(process.execPath, [SELF, '--child', mode, FILE], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`child ${mode} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as ChildResult;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Each mode `rounds` times, the modes interleaved (neighbours' load spreads over all), median by CPU time. */
function measure(modes: string[], rounds: number): Record<string, ChildResult> {
  const runs: Record<string, ChildResult[]> = {};
  for (let k = 0; k < rounds; k++) for (const mode of modes) (runs[mode] ??= []).push(runChild(mode));
  return Object.fromEntries(
    Object.entries(runs).map(([mode, rs]) => {
      const m = median(rs.map((r) => r.cpu));
      return [mode, rs.find((r) => r.cpu === m)!];
    }),
  );
}

/** The event loop's delay in this process while it does nothing for `ms` (the machine's own noise). */
async function idleLoopDelay(ms: number) {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  await new Promise((r) => setTimeout(r, ms));
  h.disable();
  return { p99: h.percentile(99) / 1e6, max: h.max / 1e6 };
}

/** Distinct first fields of the file, counted without the parser (a Set of strings). */
async function distinctAddresses() {
  const seen = new Set<string>();
  for await (const line of createInterface({ input: createReadStream(FILE), crlfDelay: Infinity })) seen.add(line.slice(0, line.indexOf(' ')));
  return seen.size;
}

/**
 * The parser behind the worker pool, called from this (main) thread as the log reader will; or, for
 * comparison, the same loop parsing in-process (yielding to the event loop between chunks, as a reader
 * awaiting the network would).
 */
async function viaPool(inProcess = false) {
  const pool = inProcess ? null : new LogParsePool({ size: 1 });
  const parser = new LogStreamParser();
  const h = monitorEventLoopDelay({ resolution: 10 });
  const fd = openSync(FILE, 'r');
  const counter = new IpCounter();
  let state = initialParseState();
  let lines = 0;
  // warm the worker up (start-up is not parsing)
  if (pool) await pool.parse(new Uint8Array(10), null);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  h.enable();
  for (;;) {
    const buf = new Uint8Array(BIG_CHUNK); // transferred to the worker: a fresh one per read
    const n = readSync(fd, buf, 0, BIG_CHUNK, null);
    if (n === 0) break;
    const chunk = n === BIG_CHUNK ? buf : buf.subarray(0, n);
    let batch;
    if (pool) {
      const r = await pool.parse(chunk, state);
      batch = r.batch;
      state = r.state;
    } else {
      await new Promise((r) => setImmediate(r));
      batch = parser.push(chunk);
    }
    counter.add(batch);
    lines += batch.length;
  }
  lines += pool ? (await pool.finish(state)).batch.length : parser.finish().length;
  h.disable();
  const wall = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(cpu0);
  closeSync(fd);
  await pool?.close();
  return { lines, ips: counter.size, wall, cpu, p99: h.percentile(99) / 1e6, max: h.max / 1e6 };
}

function ensureGoaccess(): string | null {
  const have = () => spawnSync('sh', ['-c', 'command -v goaccess'], { encoding: 'utf8' }).stdout.trim();
  if (!have()) {
    console.log('installing goaccess (apt-get)');
    spawnSync('apt-get', ['install', '-y', '-q', 'goaccess'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  }
  const bin = have();
  if (!bin) return null;
  return spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0].trim();
}

/** GoAccess on the same file, all panels, JSON report; wall, CPU and peak RSS from /usr/bin/time. */
function goaccess() {
  const out = join(tmpdir(), `goaccess-bench-${process.pid}.json`);
  const times = join(tmpdir(), `goaccess-bench-${process.pid}.time`);
  const r = spawnSync('/usr/bin/time', ['-o', times, '-f', '%e %U %S %M', 'goaccess', FILE, '--log-format=COMBINED', '-o', out], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`goaccess failed: ${r.stderr.slice(-500)}`);
  const [wall, user, sys, rssKb] = readFileSync(times, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  const report = JSON.parse(readFileSync(out, 'utf8')) as { general: { valid_requests: number; total_requests: number }; hosts: { metadata: { data: { total: { value: number } } } } };
  rmSync(out, { force: true });
  rmSync(times, { force: true });
  return { wall, cpu: user + sys, rssMb: rssKb / 1024, valid: report.general.valid_requests, hosts: report.hosts.metadata.data.total.value };
}

async function parent() {
  const { machine, writeSection } = await import('./lib.js');
  const load0 = loadavg()[0];
  buildFile();
  const size = statSync(FILE).size;
  const version = ensureGoaccess();

  const m = measure(['lines', 'parse', 'count', 'entries'], 3);
  const { lines, parse, count, entries } = m;
  const regex = measure(['regex'], 1).regex;
  const idle = await idleLoopDelay(3000);
  const pool = await viaPool();
  const inline = await viaPool(true);
  const distinct = await distinctAddresses();
  const ga = version ? goaccess() : null;
  const load1 = loadavg()[0];

  const rate = (n: number, s: number) => Math.round(n / s).toLocaleString('en-US');
  const x = (s: number) => (ga ? `${(ga.cpu / s).toFixed(0)}x` : 'n/a');
  const row = (what: string, r: ChildResult, note = '') =>
    `| ${what} | ${rate(r.lines, r.cpu)} | ${rate(r.lines, r.wall)} | ${r.cpu.toFixed(2)} | ${r.wall.toFixed(2)} | ${r.rssMb.toFixed(0)} | ${x(r.cpu)} | ${note} |`;
  const md = [
    '## Firewall: access-log parser',
    '',
    `${(lines.lines / 1e6).toFixed(1)}M lines (${(size / 1e6).toFixed(0)} MB), 100 copies of test/fixtures/access-combined-10k.log with the second octet of each address moved per copy (${count.ips.toLocaleString('en-US')} addresses); ` +
      `read in 1 MiB chunks, one process per measure, one core; ${machine()}. Run: \`npm run bench -- firewall-parse\`.`,
    '',
    `**Noisy run**: other work shared the 2 cores (load average ${load0.toFixed(1)} at the start, ${load1.toFixed(1)} at the end). Lines/s are given per CPU-second of the measuring process (less disturbed by the neighbours; still inflated by sharing a core) and per wall-clock second; each is the median of 3 runs by CPU time, the measures taken in turn (the regex baseline and GoAccess: 1 run). Re-run on a quiet machine for the record.`,
    '',
    '| measure | lines/s (CPU) | lines/s (wall) | CPU s | wall s | peak RSS MB | faster than GoAccess (CPU) | |',
    '|---|---|---|---|---|---|---|---|',
    row('newline count (`Buffer.indexOf`), the floor', lines),
    row('**parser**: `LogStreamParser.push`, columnar batches', parse, `${parse.bad} bad`),
    row('**parser + per-IP count** (`IpCounter`, what the statistics need)', count, `top ${count.top}`),
    row('parser + every line as an entry object (`toEntries`, the storage path)', entries),
    row('readline + one regex + Map of address strings (the obvious way)', regex, `${regex.bad} unmatched`),
    `| parser in the worker pool (1 worker) + count, called from the main thread, 8 MiB chunks | | ${rate(pool.lines, pool.wall)} | ${pool.cpu.toFixed(2)} (main thread + worker) | ${pool.wall.toFixed(2)} | | | caller's event loop delay p99 ${pool.p99.toFixed(1)} ms, max ${pool.max.toFixed(1)} ms |`,
    `| the same loop parsing in-process (no worker), 8 MiB chunks, for comparison | | ${rate(inline.lines, inline.wall)} | ${inline.cpu.toFixed(2)} | ${inline.wall.toFixed(2)} | | | event loop delay p99 ${inline.p99.toFixed(1)} ms, max ${inline.max.toFixed(1)} ms (idle, same process: p99 ${idle.p99.toFixed(1)} ms, max ${idle.max.toFixed(1)} ms) |`,
    ga
      ? `| GoAccess ${version?.replace(/^GoAccess - /, '').replace(/\.$/, '')} \`--log-format=COMBINED -o report.json\` (all panels) | ${rate(ga.valid, ga.cpu)} | ${rate(ga.valid, ga.wall)} | ${ga.cpu.toFixed(2)} | ${ga.wall.toFixed(2)} | ${ga.rssMb.toFixed(0)} | 1x | ${ga.valid} valid, ${ga.hosts} hosts |`
      : '| GoAccess | not installed (apt-get failed) | | | | | | |',
    '',
    `Cross-check: the parser counted ${count.lines.toLocaleString('en-US')} lines, ${count.bad} bad, ${count.ips.toLocaleString('en-US')} addresses; ` +
      `the distinct first fields of the file (a Set of strings, no parser): ${distinct.toLocaleString('en-US')} (${distinct === count.ips ? 'equal' : 'DIFFERENT'})` +
      (ga ? `; GoAccess: ${ga.valid.toLocaleString('en-US')} valid requests (${ga.valid === count.lines ? 'equal' : 'DIFFERENT'}), ${ga.hosts.toLocaleString('en-US')} hosts (${ga.hosts === count.ips ? 'equal' : `${count.ips - ga.hosts} fewer: GoAccess's own count, the file has ${distinct.toLocaleString('en-US')}`}).` : '.'),
    `Goals (issue 8): at least 1,000,000 lines/s on one core, at least 15x GoAccess, RSS under 100 MB for 1M lines. Per CPU-second here: parser + count ${rate(count.lines, count.cpu)} lines/s, ${x(count.cpu)} GoAccess, ${count.rssMb.toFixed(0)} MB peak RSS (a bare \`node\` process starts at about 40 MB). ` +
      `Ratios hold better than rates on a shared machine: parser + count costs ${(count.cpu / lines.cpu).toFixed(1)}x the CPU of the bare newline count, so it reaches 1,000,000 lines/s wherever that count exceeds ${rate(1e6 * count.cpu, lines.cpu)} lines/s.`,
    '',
    `Against the obvious way doing the same job (hits per address): ${(regex.cpu / count.cpu).toFixed(1)}x the lines per CPU-second and ${count.rssMb.toFixed(0)} MB instead of ${regex.rssMb.toFixed(0)} MB. ` +
    'Why hand-written: the regex way makes a string per line and per address and scans each line with a backtracking expression; the parser reads the bytes in place (one native newline search and one native quote search per quoted field), turns IPv4 into a uint32 and the time into epoch seconds by position, and writes typed-array columns; strings are made only for the rows a consumer asks for (`toEntries`, the storage path, is the line to compare with the regex way: it materialises everything). Per-IP counting runs on uint32 keys in an open-addressing table. ' +
      'The pool rows: chunks and batches are transferred, not copied; the caller keeps only reading, counting and awaiting. Its event loop delay is to be read beside the in-process row and the idle figure of the same process: on a loaded 2-core machine the worker also takes CPU from the caller, so neither is at the idle level (test/unit/log-parser.spec.ts shows the difference without timing: a 1 ms interval keeps ticking during a parse in the worker and never ticks during the same parse in-process).',
  ].join('\n');
  writeSection('firewall-parse', md);
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4]);
else await parent();
