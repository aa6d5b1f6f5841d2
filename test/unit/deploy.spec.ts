/** Pure parts of run once, deploy and the server console: grouping as clubak -b, line splitting, card state, console rows. */
import { parseConsoleApp, type DeployLogEvent } from '../../src/contracts/deploy.js';
import { emptyCard, applyDeployEvent } from '../../src/ui/areas/deploy/useDeployLogs.js';
import { tailCommand } from '../../src/modules/deploy/console.service.js';
import { LineSplitter } from '../../src/modules/deploy/deploy.service.js';
import { groupOutputs, outputOf } from '../../src/modules/deploy/run-once.service.js';

describe('groupOutputs', () => {
  test('identical outputs share a group; groups largest first; hosts in natural order with their codes', () => {
    const g = groupOutputs([
      { name: 'web10', output: 'a', code: 0 },
      { name: 'web2', output: 'b', code: 1 },
      { name: 'web9', output: 'a', code: 2 },
      { name: 'web1', output: 'a', code: 0 },
    ]);
    expect(g).toEqual([
      { output: 'a', hosts: ['web1', 'web9', 'web10'], codes: [0, 2, 0] },
      { output: 'b', hosts: ['web2'], codes: [1] },
    ]);
    expect(groupOutputs([])).toEqual([]);
  });

  test('outputOf: stdout then stderr, one trailing newline dropped, long output cut with a note', () => {
    expect(outputOf('x\n', 'e\n')).toBe('x\ne');
    expect(outputOf('', '')).toBe('');
    const long = outputOf('z'.repeat(70_000), '');
    expect(long.length).toBeLessThan(70_000);
    expect(long).toMatch(/\[output cut at 65536 characters\]$/);
  });
});

describe('LineSplitter', () => {
  test('joins lines split across chunks, handles CRLF, flushes the last partial line', () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l));
    s.push('one\ntw');
    s.push('o\r\nthree');
    expect(lines).toEqual(['one', 'two']);
    s.end();
    expect(lines).toEqual(['one', 'two', 'three']);
  });
});

describe('deploy card state (000 §4)', () => {
  const ev = (e: Partial<DeployLogEvent>): DeployLogEvent => ({ type: 'web_test', host: 'h', line: '', ...e });
  const run = (events: DeployLogEvent[]) => events.reduce(applyDeployEvent, emptyCard());

  test('start shows the spinner, the test marker turns the card green, end stops the spinner', () => {
    const started = run([ev({ marker: 'start' })]);
    expect(started.running).toBe(true);
    const c = run([ev({ marker: 'start' }), ev({ line: 'checking' }), ev({ marker: 'test' }), ev({ marker: 'end', ok: true, code: 0 })]);
    expect(c).toMatchObject({ running: false, status: 'ok', testOk: true, result: 'ok' });
  });

  test('other test output turns it red; the end says the exit code', () => {
    const c = run([ev({ marker: 'start' }), ev({ line: 'broken' }), ev({ marker: 'end', ok: false, code: 2 })]);
    expect(c).toMatchObject({ status: 'fail', testOk: false, result: 'exit code 2' });
  });

  test('a deploy goes green or red by its end; logs clear when the type changes', () => {
    const web = run([ev({ type: 'web', marker: 'start' }), ev({ type: 'web', line: 'built' }), ev({ type: 'web', marker: 'end', ok: true, code: 0 })]);
    expect(web).toMatchObject({ status: 'ok', type: 'web' });
    expect(web.lines).toContain('built');
    const next = applyDeployEvent(web, ev({ type: 'web_test', marker: 'start' }));
    expect(next.lines).not.toContain('built');
    expect(next.type).toBe('web_test');
  });
});

describe('server console rows', () => {
  test('name|/path[|types]', () => {
    expect(parseConsoleApp('shop|/var/log/shop.log')).toEqual({ name: 'shop', path: '/var/log/shop.log', types: [8] });
    expect(parseConsoleApp('api | /var/log/api.log | 8,9')).toEqual({ name: 'api', path: '/var/log/api.log', types: [8, 9] });
    for (const bad of ['shop', 'shop|relative.log', 'shop|/var/../etc/shadow', 'sh op|/x', 'shop|/x;rm -rf /', 'shop|/x|a']) expect(parseConsoleApp(bad)).toBeNull();
  });

  test('the tail command quotes the path and ends with the channel', () => {
    expect(tailCommand('/var/log/a.log')).toBe("tail -n 150 -F '/var/log/a.log' & t=$!; read _; kill $t 2>/dev/null");
  });
});
