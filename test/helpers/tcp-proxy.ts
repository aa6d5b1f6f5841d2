/**
 * A TCP proxy in the test process (node:net), put in front of a server (the cluster harness puts one in
 * front of Redis per instance: test/helpers/cluster.ts) so a test can cut one client's connection:
 *
 *   const p = await startTcpProxy({ host: '127.0.0.1', port: redisPort });   // p.port: point the client here
 *   p.set('reset');      // every open connection is reset now (RST), and every new one is accepted and reset at once
 *   p.set('blackhole');  // open connections stop passing bytes both ways (held, not lost); new ones are accepted and held
 *   p.set('forward');    // normal: held connections get their upstream and their held bytes, both ways
 *   await p.close();
 *
 * 'reset' uses `socket.resetAndDestroy()`, so the client sees ECONNRESET (as with a flapping link or
 * a firewall's reject-with-tcp-reset), not a clean close. The upstream side of a reset connection is
 * closed too. When the upstream itself fails (Redis killed), the client side is reset; when it closes,
 * the client side is closed. 'blackhole' models a partition that heals: TCP would retransmit, so the
 * bytes sent meanwhile arrive late rather than never.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'forward' | 'reset' | 'blackhole';

export interface TcpProxy {
  /** The loopback port clients connect to. */
  port: number;
  readonly mode: ProxyMode;
  /** Switches the mode; 'reset' also resets every connection open at that moment. */
  set(mode: ProxyMode): void;
  /** Connections open now (client side). */
  open(): number;
  /** Counters since start: connections accepted, and connections reset by the proxy (on accept or at a switch). */
  stats(): { accepted: number; resets: number };
  close(): Promise<void>;
}

interface Conn {
  client: Socket;
  upstream: Socket | null;
  held: boolean;
  toUpstream: Buffer[];
  toClient: Buffer[];
}

function reset(s: Socket | null) {
  if (!s || s.destroyed) return;
  try { s.resetAndDestroy(); } catch { s.destroy(); }
}

export async function startTcpProxy(target: { host: string; port: number }, opts: { port?: number } = {}): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  let accepted = 0;
  let resets = 0;
  const conns = new Set<Conn>();

  const release = (c: Conn) => {
    c.held = false;
    if (!c.upstream) attach(c);
    for (const b of c.toUpstream.splice(0)) c.upstream!.write(b);
    for (const b of c.toClient.splice(0)) if (!c.client.destroyed) c.client.write(b);
  };

  const attach = (c: Conn) => {
    const up = connect({ host: target.host, port: target.port });
    up.setNoDelay(true);
    c.upstream = up;
    up.on('data', (d: Buffer) => {
      if (c.held) c.toClient.push(d);
      else if (!c.client.destroyed) c.client.write(d);
    });
    // Upstream refused or failed: the client sees a reset; upstream closed: the client sees it close.
    up.on('error', () => reset(c.client));
    up.on('close', () => { if (!c.client.destroyed) c.client.destroy(); });
  };

  const server: Server = createServer((client) => {
    accepted++;
    client.on('error', () => undefined);
    if (mode === 'reset') {
      resets++;
      reset(client);
      return;
    }
    client.setNoDelay(true);
    const c: Conn = { client, upstream: null, held: mode === 'blackhole', toUpstream: [], toClient: [] };
    conns.add(c);
    client.on('data', (d: Buffer) => {
      if (c.held || !c.upstream) c.toUpstream.push(d);
      else c.upstream.write(d);
    });
    client.on('close', () => {
      conns.delete(c);
      c.upstream?.destroy();
    });
    if (!c.held) attach(c);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    port: (server.address() as { port: number }).port,
    get mode() {
      return mode;
    },
    set(next) {
      mode = next;
      if (next === 'reset') {
        for (const c of [...conns]) {
          resets++;
          conns.delete(c);
          reset(c.client);
          c.upstream?.destroy();
        }
      } else if (next === 'blackhole') {
        for (const c of conns) c.held = true;
      } else {
        for (const c of conns) if (c.held) release(c);
      }
    },
    open: () => conns.size,
    stats: () => ({ accepted, resets }),
    close: async () => {
      for (const c of [...conns]) {
        c.client.destroy();
        c.upstream?.destroy();
      }
      conns.clear();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
