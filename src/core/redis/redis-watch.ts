import { Logger } from '@nestjs/common';

/** What the watch needs of a node-redis client. */
interface RedisClientLike {
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  readonly isReady: boolean;
  ping(): Promise<unknown>;
}

const PING_TIMEOUT_MS = 1000;

/**
 * Reachability of a group of Redis clients (the socket.io adapter's pub and sub): every client gets an
 * 'error' listener (without one node-redis reports "missing 'error' handler" and a failure can end the
 * process), the first error of an outage logs ONE warning, the retries of the outage log nothing, and
 * one info line says when every client is ready again. `status()` answers for /api/health.
 */
export class RedisWatch {
  private readonly clients: RedisClientLike[] = [];
  private down = false;
  private readonly log = new Logger('Redis');

  constructor(private readonly label: string) {}

  /** Call before connect(): a failed first connect is an 'error' event too. */
  watch(...clients: RedisClientLike[]): void {
    for (const c of clients) {
      this.clients.push(c);
      c.on('error', (err: Error) => {
        if (this.down) return;
        this.down = true;
        this.log.warn(`Redis unreachable (${this.label}): ${err?.message || String(err)}. Retrying; logged once per outage`);
      });
      c.on('ready', () => {
        if (!this.down || !this.clients.every((x) => x.isReady)) return;
        this.down = false;
        this.log.log(`Redis reachable again (${this.label})`);
      });
    }
  }

  /** 'up' when every client is connected and the first answers PING within a second. */
  async status(): Promise<'up' | 'down'> {
    if (!this.clients.length || !this.clients.every((c) => c.isReady)) return 'down';
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([this.clients[0].ping(), new Promise((_r, reject) => { timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS); })]);
      return 'up';
    } catch {
      return 'down';
    } finally {
      clearTimeout(timer);
    }
  }
}
