/**
 * Run once on 100 OpenSSH servers on loopback (100 sshd processes, one host key, one throw-away user,
 * key login) beside parallel-ssh (Debian's `pssh`) with the same concurrency and the same command, in
 * the same run: wall time of `srv.runOnce` over HTTP (connect, run, audit per host, grouping) against
 * `parallel-ssh -p N`, median of 3 after one warm-up each (the warm-up pins the host keys here).
 * Goal (issue 11): at most half of parallel-ssh's wall time. Run: `npm run bench -- run-once` (root).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, SSHD_PATH } from '../test/helpers/sshd.js';
import { machine, startBenchApp, writeSection } from './lib.js';

const NODES = 100;
const RUNS = 3;
const CONCURRENCY = [20, 50];
const COMMAND = 'uname -a';
const PSSH = '/usr/bin/parallel-ssh';

if (process.getuid?.() !== 0) {
  console.log('run-once: skipped, it needs root (sshd instances, a throw-away user)');
  process.exit(0);
}
if (!existsSync(PSSH)) execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'pssh'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
if (!existsSync(SSHD_PATH)) execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'openssh-server'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });

// ---- 100 sshd on loopback: one dir, one host key, one user, one authorized key, distinct ports
mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
const dir = mkdtempSync(join(tmpdir(), 'bench-ro-'));
chmodSync(dir, 0o755);
const user = `br${randomBytes(4).toString('hex')}`;
execFileSync('useradd', ['-m', '-s', '/bin/sh', user], { stdio: 'pipe' });
// A locked account (no password) is refused even for key logins when UsePAM is off.
execFileSync('chpasswd', { input: `${user}:pw-${randomBytes(9).toString('base64url')}\n`, stdio: ['pipe', 'pipe', 'pipe'] });
const keygen = (file: string) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'bench', '-f', file], { stdio: 'pipe' });
keygen(join(dir, 'host_ed25519'));
keygen(join(dir, 'client_key'));
chmodSync(join(dir, 'client_key'), 0o600);
writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_key.pub')), { mode: 0o644 });
const privateKey = readFileSync(join(dir, 'client_key'), 'utf8');

const procs: ChildProcess[] = [];
const ports: number[] = [];
const cleanup = () => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGTERM');
  try { execFileSync('userdel', ['-f', '-r', user], { stdio: 'pipe' }); } catch { /* gone */ }
  rmSync(dir, { recursive: true, force: true });
};
process.on('exit', cleanup);

for (let i = 0; i < NODES; i++) {
  const port = await freePort();
  const cfg = join(dir, `sshd_${port}`);
  writeFileSync(cfg, [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host_ed25519')}`, 'PidFile none', 'UsePAM no',
    'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'PubkeyAuthentication yes', `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    'StrictModes no', 'PermitRootLogin no', `AllowUsers ${user}`, 'MaxStartups 200:30:400', 'LogLevel ERROR', '',
  ].join('\n'));
  procs.push(spawn(SSHD_PATH, ['-D', '-e', '-f', cfg], { stdio: ['ignore', 'ignore', 'ignore'] }));
  ports.push(port);
}
// Every port answers (bounded wait).
const { createConnection } = await import('node:net');
const until = Date.now() + 30_000;
for (const port of ports) {
  for (;;) {
    const ok = await new Promise<boolean>((r) => { const c = createConnection({ host: '127.0.0.1', port }, () => { c.destroy(); r(true); }); c.once('error', () => r(false)); });
    if (ok) break;
    if (Date.now() > until) throw new Error(`sshd on ${port} did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const hostsFile = join(dir, 'hosts');
writeFileSync(hostsFile, ports.map((p) => `127.0.0.1:${p} ${user}`).join('\n') + '\n');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timePssh(p: number): Promise<number> {
  const started = performance.now();
  const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
    const child = spawn(PSSH, [
      '-h', hostsFile, '-p', String(p), '-t', '60', '-i',
      '-x', `-i ${join(dir, 'client_key')} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes`,
      COMMAND,
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d: Buffer) => { text += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { text += d.toString(); });
    child.on('close', (code) => resolve({ code, text }));
  });
  const ms = performance.now() - started;
  const ok = (out.text.match(/\[SUCCESS\]/g) ?? []).length;
  if (ok !== NODES) throw new Error(`parallel-ssh: ${ok} of ${NODES} succeeded (exit ${out.code}): ${out.text.slice(-800)}`);
  return ms;
}

const rows: string[] = [];
for (const p of CONCURRENCY) {
  const s = await startBenchApp({ RUN_ONCE_CONCURRENCY: String(p) });
  try {
    const rpc = async (method: string, args: unknown) => {
      const r = await fetch(`${s.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', User: s.hash }, body: JSON.stringify({ methods: [method], args: [args], host: 0 }) });
      const [env] = (await r.json()) as Array<{ status: string; result?: any; message?: string }>;
      if (env.status !== 'ok') throw new Error(`${method}: ${env.message}`);
      return env.result;
    };
    const ids: number[] = [];
    for (let i = 0; i < NODES; i++) {
      ids.push((await rpc('srv.save_server', { name: `ro-${String(i + 1).padStart(3, '0')}`, type: 9, ip: '127.0.0.1', sshport: ports[i], sshlogin: user, private_key: privateKey })).Id);
    }
    const timeRunOnce = async () => {
      const started = performance.now();
      const r = await rpc('srv.runOnce', { ids, cmd: COMMAND });
      const ms = performance.now() - started;
      const hosts = r.groups.reduce((n: number, g: { hosts: string[] }) => n + g.hosts.length, 0);
      if (hosts !== NODES || r.failed.length) throw new Error(`runOnce: ${hosts} answered, failed ${JSON.stringify(r.failed.slice(0, 3))}`);
      return ms;
    };
    await timeRunOnce();
    await timePssh(p);
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      ours.push(await timeRunOnce());
      theirs.push(await timePssh(p));
    }
    const a = median(ours);
    const b = median(theirs);
    rows.push(`| ${p} | ${Math.round(a)} ms | ${Math.round(b)} ms | ${(a / b).toFixed(2)} | ${a <= b / 2 ? 'met' : 'NOT met'} |`);
    console.log(`p=${p}: runOnce ${ours.map(Math.round).join(', ')} ms; parallel-ssh ${theirs.map(Math.round).join(', ')} ms`);
  } finally {
    await s.close();
  }
}

writeSection('run-once', `
## Run once

\`srv.runOnce\` (\`${COMMAND}\`) on ${NODES} OpenSSH servers on loopback (${NODES} sshd processes, key login,
SQLite, one app process) beside \`parallel-ssh -p N -i\` (pssh 2.3.x, OpenSSH client) with the same
concurrency and command, alternating in the same run; median of ${RUNS} after one warm-up each. The
runOnce time is the whole HTTP call: connects (host keys pinned), runs, one audit row per host, grouping.
Goal: at most half of parallel-ssh's wall time. ${machine()}.

| concurrency | srv.runOnce | parallel-ssh | ratio | goal |
|---|---|---|---|---|
${rows.join('\n')}
`);
process.exit(0);
