/**
 * A Node TLS server on loopback with a freshly generated self-signed certificate (openssl CLI) valid
 * for a chosen number of days, for the SSL-expiry checks. Records the SNI names clients sent.
 *
 *   const tls = await startTlsServer({ days: 3 });   // host 'localhost', tls.port
 *   await tls.stop();
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext, createServer, type TLSSocket } from 'node:tls';

export interface TlsPeer {
  host: string;
  port: number;
  /** The certificate's notAfter as openssl wrote it. */
  notAfter: Date;
  /** SNI server names received, in order (false when a client sent none). */
  servernames: Array<string | false>;
  stop(): Promise<void>;
}

export async function startTlsServer(opts: { days: number; cn?: string }): Promise<TlsPeer> {
  const cn = opts.cn ?? 'localhost';
  const dir = mkdtempSync(join(tmpdir(), 'tls-'));
  try {
    const key = join(dir, 'key.pem');
    const crt = join(dir, 'cert.pem');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-days', String(opts.days), '-nodes', '-subj', `/CN=${cn}`,
      '-addext', `subjectAltName=DNS:${cn},IP:127.0.0.1`, '-keyout', key, '-out', crt,
    ], { stdio: 'pipe' });
    const notAfterLine = execFileSync('openssl', ['x509', '-noout', '-enddate', '-in', crt], { encoding: 'utf8' });
    const notAfter = new Date(notAfterLine.replace(/^notAfter=/, '').trim());
    const servernames: Array<string | false> = [];
    const context = createSecureContext({ key: readFileSync(key), cert: readFileSync(crt) });
    const server = createServer({
      key: readFileSync(key),
      cert: readFileSync(crt),
      // Called on the ClientHello when it names a server (SNI); connections without SNI are counted below.
      SNICallback: (name, cb) => { servernames.push(name); cb(null, context); },
    }, (s: TLSSocket) => {
      s.on('error', () => undefined);
      s.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
    });
    // A ClientHello without server_name never reaches SNICallback: recorded once the handshake completes.
    server.on('secureConnection', (s: TLSSocket) => { if (!s.servername) servernames.push(false); });
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (server.address() as { port: number }).port;
    return {
      host: cn,
      port,
      notAfter,
      servernames,
      stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
