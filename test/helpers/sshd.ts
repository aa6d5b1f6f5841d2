/**
 * A real OpenSSH server (Debian's openssh-server) on a free loopback port, for the SSH tests: its own
 * config file and host keys in a temp dir, run as root in the foreground (`sshd -D -e -f config`,
 * UsePAM no), a throw-away user with a random password and an authorized key, removed on stop.
 *
 *   const sshd = await startSshd();
 *   ... connect to 127.0.0.1:sshd.port as sshd.user with sshd.password or sshd.privateKey ...
 *   await sshd.rotateHostKeys();   // same port, new host keys
 *   await sshd.stop();
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SSHD_PATH = '/usr/sbin/sshd';

export interface Sshd {
  host: '127.0.0.1';
  port: number;
  user: string;
  password: string;
  /** OpenSSH private key (ed25519, no passphrase) whose public half is authorized. */
  privateKey: string;
  /** The same kind of key, protected by `keyPassphrase`, also authorized. */
  encryptedKey: string;
  keyPassphrase: string;
  /** Stops, generates new host keys, starts again on the same port. */
  rotateHostKeys(): Promise<void>;
  /** sshd's stderr so far (for failure messages). */
  log(): string;
  /** The listening sshd's process id (its sessions are its children). */
  pid(): number | undefined;
  stop(): Promise<void>;
}

/** Installs openssh-server when missing (the test command's job on a fresh machine). */
function ensureSshd() {
  if (existsSync(SSHD_PATH)) return;
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'openssh-server'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (!existsSync(SSHD_PATH)) throw new Error(`${SSHD_PATH} is missing and openssh-server could not be installed`);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, proc: ChildProcess, log: () => string, ms = 10_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (proc.exitCode !== null) throw new Error(`sshd exited with ${proc.exitCode}: ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const c = createConnection({ host: '127.0.0.1', port }, () => { c.destroy(); resolve(true); });
      c.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`sshd did not listen on ${port}: ${log()}`);
}

const keygen = (file: string, type: string, passphrase = '') =>
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', passphrase, '-C', 'console-test', '-f', file], { stdio: 'pipe' });

export async function startSshd(): Promise<Sshd> {
  ensureSshd();
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = mkdtempSync(join(tmpdir(), 'sshd-'));
  chmodSync(dir, 0o755);
  const user = `ct${randomBytes(4).toString('hex')}`;
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  execFileSync('useradd', ['-m', '-s', '/bin/sh', user], { stdio: 'pipe' });
  execFileSync('chpasswd', { input: `${user}:${password}\n`, stdio: ['pipe', 'pipe', 'pipe'] });

  keygen(join(dir, 'client_key'), 'ed25519');
  const keyPassphrase = `kp-${randomBytes(6).toString('hex')}`;
  keygen(join(dir, 'client_key_enc'), 'ed25519', keyPassphrase);
  const authorized = join(dir, 'authorized_keys');
  writeFileSync(authorized, readFileSync(join(dir, 'client_key.pub'), 'utf8') + readFileSync(join(dir, 'client_key_enc.pub'), 'utf8'), { mode: 0o644 });

  const makeHostKeys = () => {
    for (const t of ['ed25519', 'ecdsa']) {
      rmSync(join(dir, `host_${t}`), { force: true });
      rmSync(join(dir, `host_${t}.pub`), { force: true });
      keygen(join(dir, `host_${t}`), t);
    }
  };
  makeHostKeys();
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(config, [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${join(dir, 'host_ed25519')}`,
    `HostKey ${join(dir, 'host_ecdsa')}`,
    'PidFile none',
    'UsePAM no',
    'PasswordAuthentication yes',
    'KbdInteractiveAuthentication no',
    'PubkeyAuthentication yes',
    `AuthorizedKeysFile ${authorized}`,
    'StrictModes no',
    'PermitRootLogin no',
    `AllowUsers ${user}`,
    'MaxStartups 100:30:200',
    'MaxAuthTries 10',
    'LogLevel VERBOSE',
    '',
  ].join('\n'));
  execFileSync(SSHD_PATH, ['-t', '-f', config], { stdio: 'pipe' });

  let stderr = '';
  let proc: ChildProcess;
  const run = async () => {
    proc = spawn(SSHD_PATH, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    proc.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-20_000); });
    await waitForPort(port, proc, () => stderr);
  };
  const halt = () =>
    new Promise<void>((resolve) => {
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  await run();

  return {
    host: '127.0.0.1',
    port,
    user,
    password,
    privateKey: readFileSync(join(dir, 'client_key'), 'utf8'),
    encryptedKey: readFileSync(join(dir, 'client_key_enc'), 'utf8'),
    keyPassphrase,
    log: () => stderr,
    pid: () => proc?.pid,
    rotateHostKeys: async () => {
      await halt();
      makeHostKeys();
      await run();
    },
    stop: async () => {
      await halt();
      // Sessions still open are children of the listener and end with their connections; -f removes
      // the user even if one is still closing.
      try { execFileSync('userdel', ['-f', '-r', user], { stdio: 'pipe' }); } catch { /* already gone */ }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
