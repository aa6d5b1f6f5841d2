import { Logger, type INestApplicationContext } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import { createClient } from 'redis';
import type { Server, ServerOptions } from 'socket.io';
import { SOCKET_CLIENT_STATUS } from '../../contracts/constants.js';
import { MSG } from '../../contracts/messages.js';
import { AuthService } from '../auth/auth.service.js';
import { RedisWatch } from '../redis-watch.js';

/**
 * socket.io on the same port. The handshake must carry a live session hash (`auth.hash`, or the
 * `User` header); without one the connection is refused. With REDIS_URL, events fan out to every
 * instance through the Redis adapter.
 */
export class AuthedSocketAdapter extends IoAdapter {
  private readonly log = new Logger('Socket');
  private redisAdapter?: ReturnType<typeof createAdapter>;
  private redisClients: Array<ReturnType<typeof createClient>> = [];
  /** The Redis clients' reachability: one warning per outage; /api/health reads it. */
  readonly redis = new RedisWatch('socket.io adapter');

  constructor(private readonly app: INestApplicationContext, private readonly redisUrl?: string) {
    super(app);
  }

  async connectRedis() {
    if (!this.redisUrl) return;
    const pub = createClient({ url: this.redisUrl });
    const sub = pub.duplicate();
    this.redis.watch(pub, sub);
    await Promise.all([pub.connect(), sub.connect()]);
    this.redisClients = [pub, sub];
    this.redisAdapter = createAdapter(pub, sub);
    this.log.log('socket.io events fan out through Redis');
  }

  override createIOServer(port: number, options?: ServerOptions): Server {
    const server: Server = super.createIOServer(port, { ...options, maxHttpBufferSize: 1e6 } as ServerOptions);
    if (this.redisAdapter) server.adapter(this.redisAdapter);
    const auth = this.app.get(AuthService);
    server.use(async (socket, next) => {
      const header = socket.handshake.headers['user'];
      const hash = (socket.handshake.auth?.hash as string | undefined) ?? (Array.isArray(header) ? header[0] : header);
      const actor = await auth.verify(hash).catch(() => null);
      if (!actor) return next(new Error(MSG.sessionRequired));
      socket.data.actor = { ...actor, ip: socket.handshake.address };
      socket.data.status = socket.handshake.auth?.status === SOCKET_CLIENT_STATUS ? SOCKET_CLIENT_STATUS : 'client';
      next();
    });
    return server;
  }

  override async close(server: Server) {
    await super.close(server);
    await Promise.all(this.redisClients.map((c) => c.quit().catch(() => undefined)));
  }
}
