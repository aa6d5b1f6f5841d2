/**
 * Terminals: the asciicast v2 writer (header, event lines, resize, input, size cap, close) on a real
 * file, the replay's parser (long pauses shortened, cut lines skipped), and the socket message schemas
 * (clamped sizes, one-line mass input).
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MassWriteArgs, TerminalConnectArgs, TerminalResizeArgs, TerminalWriteArgs, gridRows } from '../../src/contracts/terminal.js';
import { CastRecorder } from '../../src/modules/terminal/cast-recorder.js';
import { parseCast } from '../../src/ui/areas/terminal/cast.js';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'cast-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const header = { version: 2 as const, width: 80, height: 24, timestamp: 1_700_000_000, title: 'n1 (admin)', env: { TERM: 'xterm-256color' } };
const read = (p: string) => readFileSync(p, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

test('CastRecorder writes asciicast v2: header, output, resize and input events in order, file 0600', async () => {
  const path = join(dir, '2026-11', '1.cast');
  const rec = new CastRecorder(path, header, 1024 * 1024);
  rec.output('$ ');
  rec.input('echo hi\r');
  rec.output('echo hi\r\nhi\r\n');
  rec.resize(100, 30);
  const bytes = await rec.close();
  expect(bytes).toBe(statSync(path).size);
  expect(statSync(path).mode & 0o777).toBe(0o600);
  const [h, ...events] = read(path);
  expect(h).toEqual(header);
  expect(events.map((e) => [e[1], e[2]])).toEqual([['o', '$ '], ['i', 'echo hi\r'], ['o', 'echo hi\r\nhi\r\n'], ['r', '100x30']]);
  for (let i = 1; i < events.length; i++) expect(events[i][0]).toBeGreaterThanOrEqual(events[i - 1][0]);
  rec.output('after close'); // ignored
  expect(read(path)).toHaveLength(5);
});

test('CastRecorder stops at the size cap with one marker and says it was truncated', async () => {
  const path = join(dir, '2.cast');
  const rec = new CastRecorder(path, header, 2000);
  for (let i = 0; i < 100; i++) rec.output('y\r\n'.repeat(10));
  await rec.close();
  expect(rec.truncated).toBe(true);
  const lines = read(path);
  expect(lines.at(-1)[2]).toContain('[recording stopped: size limit reached]');
  expect(lines.filter((l) => Array.isArray(l) && String(l[2]).includes('size limit'))).toHaveLength(1);
  expect(statSync(path).size).toBeLessThan(2200);
});

test('CastRecorder never overwrites an existing file', async () => {
  const path = join(dir, '3.cast');
  await new CastRecorder(path, header, 1000).close();
  const second = new CastRecorder(path, header, 1000);
  second.output('x');
  await second.close();
  expect(second.error?.message).toMatch(/EEXIST/);
});

test('parseCast shortens pauses over 2 s and skips broken lines', () => {
  const text = [JSON.stringify(header), '[0.5,"o","a"]', '[10.5,"o","b"]', '[10.7,"r","90x40"]', '[11.0,"o",', ''].join('\n');
  const c = parseCast(text);
  expect(c.width).toBe(80);
  expect(c.events).toEqual([{ t: 0.5, code: 'o', data: 'a' }, { t: 2.5, code: 'o', data: 'b' }, { t: expect.closeTo(2.7, 5), code: 'r', data: '90x40' }]);
  expect(() => parseCast('{"version":1}')).toThrow('Not an asciicast v2 recording');
});

test('socket message schemas: sizes clamped, ids checked, one line for the mass terminal', () => {
  expect(TerminalConnectArgs.parse({ Id: '7', cols: 9999, rows: 1 })).toEqual({ Id: 7, cols: 500, rows: 2 });
  expect(TerminalResizeArgs.parse({ key: 3, cols: 5, rows: 900 })).toEqual({ key: 3, cols: 10, rows: 200 });
  expect(TerminalConnectArgs.safeParse({ Id: 0 }).success).toBe(false);
  expect(TerminalWriteArgs.safeParse({ key: 1, str: 'x'.repeat(65_537) }).success).toBe(false);
  expect(MassWriteArgs.parse({ keys: 4, line: 'uptime' })).toEqual({ keys: [4], line: 'uptime' });
  expect(MassWriteArgs.safeParse({ keys: [1], line: 'a\rb' }).success).toBe(false);
  expect(MassWriteArgs.safeParse({ keys: [], line: 'a' }).success).toBe(false);
  expect([gridRows('auto'), gridRows('0.25'), gridRows('0.5'), gridRows('x2'), gridRows('x3')]).toEqual([48, 12, 24, 96, 144]);
});
