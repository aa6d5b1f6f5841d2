/**
 * The node agent's file access (src/agent/files.ts) and configuration (src/agent/config.ts): the tail
 * read from the end on the edge cases, name confinement, and a bad environment refused at start.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentConfigError, loadAgentConfig, type AgentConfig } from '../../src/agent/config.js';
import { AgentHttpError, errorCounterpart, listFiles, openConfined, resolveName, tailLines } from '../../src/agent/files.js';

let root: string;
let cfg: AgentConfig;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'agent-unit-'));
  mkdirSync(join(root, 'logs'));
  cfg = loadAgentConfig({ AGENT_CLUSTER_KEY: 'k'.repeat(16), AGENT_LOG_DIRS: join(root, 'logs') });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function tail(content: string | Buffer, n: number) {
  writeFileSync(join(root, 'logs', 't.log'), content);
  const fh = await openConfined(resolveName(cfg, 't.log'));
  try { return await tailLines(fh, n); } finally { await fh.close(); }
}

describe('tailLines', () => {
  test('with and without a final newline, CRLF, fewer lines than asked, an empty file', async () => {
    expect((await tail('a\nb\nc\n', 2)).lines).toEqual(['b', 'c']);
    expect((await tail('a\nb\nc', 2)).lines).toEqual(['b', 'c']);
    expect((await tail('a\r\nb\r\n', 5)).lines).toEqual(['a', 'b']);
    expect((await tail('only\n', 200)).lines).toEqual(['only']);
    expect((await tail('', 200)).lines).toEqual([]);
    expect((await tail('a\n\nb\n', 3)).lines).toEqual(['a', '', 'b']);
  });

  test('lines across chunk boundaries and multi-byte characters stay whole', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `${i} ${'ж'.repeat(i % 97)} ${'x'.repeat(i % 300)}`);
    const r = await tail(lines.join('\n') + '\n', 1000);
    expect(r.lines).toEqual(lines.slice(2000));
    expect(r.bytesRead).toBeLessThan(Buffer.byteLength(lines.join('\n')));
  });

  test('a huge last line is bounded: at most 8 MiB read, the partial first line dropped', async () => {
    const r = await tail(Buffer.concat([Buffer.from('start\n'), Buffer.alloc(9 * 1024 * 1024, 'z'), Buffer.from('\nend\n')]), 3);
    expect(r.bytesRead).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(r.lines).toEqual(['end']);
  });
});

describe('names and files', () => {
  test('names that try to leave are refused; a symlink is neither listed nor opened', async () => {
    for (const n of ['../x', '..', '/etc/passwd', 'a/b', 'logs/x', '%2e%2e', 'a\\b', 'x\0y', '.', '']) {
      expect(() => resolveName(cfg, n)).toThrow(AgentHttpError);
    }
    writeFileSync(join(root, 'outside.txt'), 'secret');
    symlinkSync(join(root, 'outside.txt'), join(root, 'logs', 'out.log'));
    mkdirSync(join(root, 'logs', 'sub'));
    expect((await listFiles(cfg)).map((f) => f.name)).not.toContain('out.log');
    expect((await listFiles(cfg)).map((f) => f.name)).not.toContain('sub');
    await expect(openConfined(resolveName(cfg, 'out.log'))).rejects.toMatchObject({ code: 403 });
    await expect(openConfined(resolveName(cfg, 'sub'))).rejects.toMatchObject({ code: 404 });
  });

  test('a bad environment stops the start with a message naming the variable', () => {
    expect(() => loadAgentConfig({ AGENT_LOG_DIRS: join(root, 'logs') })).toThrow(/AGENT_CLUSTER_KEY/);
    expect(() => loadAgentConfig({ AGENT_CLUSTER_KEY: 'short', AGENT_LOG_DIRS: join(root, 'logs') })).toThrow(/at least 16/);
    expect(() => loadAgentConfig({ AGENT_CLUSTER_KEY: 'k'.repeat(16), AGENT_LOG_DIRS: 'relative/dir' })).toThrow(AgentConfigError);
    expect(() => loadAgentConfig({ AGENT_CLUSTER_KEY: 'k'.repeat(16), AGENT_LOG_DIRS: '/' })).toThrow(/not allowed/);
    expect(() => loadAgentConfig({ AGENT_CLUSTER_KEY: 'k'.repeat(16), AGENT_LOG_DIRS: join(root, 'missing') })).toThrow(/not a readable directory/);
    expect(() => loadAgentConfig({ AGENT_CLUSTER_KEY: 'k'.repeat(16), AGENT_LOG_DIRS: join(root, 'logs'), AGENT_CONFIG_FILE: 'rel.json' })).toThrow(/absolute/);
  });
});

describe('output and error (type)', () => {
  test("pm2's {app}-out.log / {app}-error.log and the .out / .err pair; an error file is its own; others have none", () => {
    expect(errorCounterpart('web-out.log')).toBe('web-error.log');
    expect(errorCounterpart('app/api-out-3.log')).toBe('app/api-error-3.log');
    expect(errorCounterpart('logs/job.out')).toBe('logs/job.err');
    expect(errorCounterpart('web-error.log')).toBe('web-error.log');
    expect(errorCounterpart('job.err')).toBe('job.err');
    for (const n of ['access.log', 'out.log', '-out.log', 'web-out.log.1', 'logs/.out', 'stdout']) expect(errorCounterpart(n)).toBeNull();
  });
});
