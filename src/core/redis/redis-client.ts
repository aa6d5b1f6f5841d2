import { createClient } from 'redis';

/** No API call waits on Redis longer than this: a command not answered by then fails (docs/operations.md), also on a connection that takes bytes and never answers. */
export const REDIS_COMMAND_TIMEOUT_MS = 1500;
/** A (re)connect attempt gives up after this. */
export const REDIS_CONNECT_TIMEOUT_MS = 2000;
/** The longest pause between two reconnect attempts (they back off from 50 ms, with jitter). */
export const REDIS_RECONNECT_MAX_MS = 2000;
/** How long start-up waits for Redis before it goes on without it (it connects in the background). */
export const REDIS_START_WAIT_MS = 2000;
/** close() waits this long for a polite QUIT, then drops the connection (a shutdown has 5 s in all). */
const REDIS_CLOSE_MS = 500;

export type RedisClient = ReturnType<typeof createRedisClient>;

/**
 * The one way the console makes a Redis client (the socket.io adapter's and the cron coordinator's):
 * - commands fail at once while the connection is down (`disableOfflineQueue`) and after
 *   REDIS_COMMAND_TIMEOUT_MS when Redis does not answer, so no call hangs on an outage (a subscriber
 *   keeps its queue: it only sends (un)subscribes, which must reach Redis once it is back);
 * - reconnects back off from 50 ms to REDIS_RECONNECT_MAX_MS with jitter, forever, with a connect
 *   time-out and a PING every 5 s that notices a dead connection nobody writes to;
 * - RESP2, the protocol the socket.io Redis adapter speaks (node-redis 6 defaults to RESP3).
 * Callers add their 'error' listener before connecting (RedisWatch does, logging once per outage).
 */
export function createRedisClient(url: string, opts: { subscriber?: boolean } = {}) {
  const client = createClient({
    url,
    RESP: 2,
    disableOfflineQueue: !opts.subscriber,
    commandOptions: { timeout: REDIS_COMMAND_TIMEOUT_MS },
    pingInterval: 5000,
    socket: {
      connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 10), REDIS_RECONNECT_MAX_MS) + Math.floor(Math.random() * 100),
    },
  });
  // node-redis's `timeout` only bounds the wait before a command is written: once written to a
  // connection that takes bytes but never answers (a partition, a stopped Redis, a proxy holding the
  // connection) the command waited forever (issue 26: SIGTERM hung on a DEL). Every command (the PING
  // of pingInterval too) now fails after REDIS_COMMAND_TIMEOUT_MS whatever the connection does; a reply
  // arriving later still pops its own place in the queue, so later replies stay matched.
  // On the instance behind the returned object (`_self`): the command methods send through it.
  type Sender = { sendCommand: (...args: unknown[]) => Promise<unknown> };
  const c = (client as unknown as { _self?: Sender })._self ?? (client as unknown as Sender);
  const send = c.sendCommand;
  c.sendCommand = function (this: unknown, ...args: unknown[]) {
    return replyWithin(send.apply(this, args), REDIS_COMMAND_TIMEOUT_MS);
  };
  return client;
}

function replyWithin<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_r, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  p.catch(() => undefined);
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Connects, waiting at most REDIS_START_WAIT_MS: without Redis the instance starts anyway and the client keeps trying. */
export async function connectRedis(...clients: RedisClient[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(clients.map((c) => c.connect().catch(() => undefined))),
    new Promise((r) => { timer = setTimeout(r, REDIS_START_WAIT_MS); }),
  ]);
  clearTimeout(timer);
}

/** Closes politely when Redis answers, else drops the connection: never more than about a second, whatever Redis does. */
export async function closeRedis(...clients: RedisClient[]): Promise<void> {
  await Promise.all(clients.map(async (c) => {
    if (!c.isOpen) return;
    let timer: NodeJS.Timeout | undefined;
    const polite = c.isReady ? c.close().catch(() => undefined) : Promise.resolve();
    await Promise.race([polite, new Promise((r) => { timer = setTimeout(r, REDIS_CLOSE_MS); })]);
    clearTimeout(timer);
    if (c.isOpen) c.destroy();
  }));
}
