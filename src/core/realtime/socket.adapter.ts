import { Logger, type INestApplicationContext } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Server, ServerOptions } from 'socket.io';
import { SOCKET_CLIENT_STATUS } from '../../contracts/constants.js';
import { MSG } from '../../contracts/messages.js';
import { AuthService } from '../auth/auth.service.js';
import { closeRedis, connectRedis, createRedisClient, type RedisClient } from '../redis/redis-client.js';
import { RedisWatch } from '../redis/redis-watch.js';

/**
 * socket.io on the same port. The handshake must carry a live session hash (`auth.hash`, or the
 * `User` header); without one the connection is refused. With REDIS_URL, events fan out to every
 * instance through the Redis adapter (docs/operations.md "Several instances"):
 * - the clients come from core/redis/redis-client.ts: a publish while Redis is down fails at once and is dropped
 *   (never queued and delivered late in a burst, never an unhandled rejection), the subscriber renews
 *   its subscriptions on every reconnect;
 * - when Redis is back after an outage, every socket (of every instance) gets `realtime.resync`: events from and to the
 *   other instances were lost meanwhile, so open pages re-read what they show.
 */
/**
 * Listeners one socket may hold per event before Node warns of a leak. Nest binds a 'disconnect' listener
 * per gateway on every socket (8 gateways), and the session tracker, the live channels and the terminal one
 * each: 12 on a socket with a terminal open (test/api/live-channels.e2e.ts), past Node's default of 10. A
 * leak (a listener per message) still warns.
 */
const SOCKET_LISTENERS = 32;

export class AuthedSocketAdapter extends IoAdapter {
  private readonly log = new Logger('Socket');
  private redisAdapter?: ReturnType<typeof createAdapter>;
  private redisClients: RedisClient[] = [];
  private server?: Server;
  private outage = false;
  /** The Redis clients' reachability: one warning per outage; /api/health reads it. */
  readonly redis = new RedisWatch('socket.io adapter');

  constructor(private readonly app: INestApplicationContext, private readonly redisUrl?: string) {
    super(app);
  }

  async connectRedis() {
    if (!this.redisUrl) return;
    const pub = createRedisClient(this.redisUrl);
    const sub = createRedisClient(this.redisUrl, { subscriber: true });
    this.redis.watch(pub, sub);
    // The adapter publishes without awaiting: a failed publish (Redis down) is dropped here, not thrown.
    const publish = pub.publish.bind(pub);
    Object.defineProperty(pub, 'publish', { value: (...args: Parameters<typeof publish>) => publish(...args).catch(() => 0) });
    for (const c of [pub, sub]) {
      c.on('error', () => { this.outage = true; });
      c.on('ready', () => {
        if (!this.outage || !pub.isReady || !sub.isReady) return;
        this.outage = false;
        // Events between this instance and the others were lost both ways meanwhile: every socket, here and on
        // the other instances (through the adapter, now that it works again), re-reads what it shows.
        this.server?.emit('realtime.resync', { reason: 'redis' });
      });
    }
    this.redisClients = [pub, sub];
    this.redisAdapter = createAdapter(pub, sub);
    await connectRedis(pub, sub);
    this.log.log('socket.io events fan out through Redis');
  }

  override createIOServer(port: number, options?: ServerOptions): Server {
    const server: Server = super.createIOServer(port, { ...options, maxHttpBufferSize: 1e6 } as ServerOptions);
    if (this.redisAdapter) server.adapter(this.redisAdapter);
    this.server = server;
    const auth = this.app.get(AuthService);
    server.use(async (socket, next) => {
      const header = socket.handshake.headers['user'];
      const hash = (socket.handshake.auth?.hash as string | undefined) ?? (Array.isArray(header) ? header[0] : header);
      const actor = await auth.verify(hash).catch(() => null);
      if (!actor) return next(new Error(MSG.sessionRequired));
      socket.data.actor = { ...actor, ip: socket.handshake.address };
      socket.data.status = socket.handshake.auth?.status === SOCKET_CLIENT_STATUS ? SOCKET_CLIENT_STATUS : 'client';
      socket.setMaxListeners(SOCKET_LISTENERS);
      next();
    });
    return server;
  }

  override async close(server: Server) {
    await super.close(server);
    await closeRedis(...this.redisClients);
  }
}
