import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FastifyReply } from 'fastify';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { Public } from './auth/actor.js';
import { isDbUnreachable } from './database/db-errors.js';
import { dbOutage } from './database/db-outage.js';
import { RawResponse } from './http/raw.js';
import type { RedisWatch } from './redis/redis-watch.js';

@Controller('health')
export class HealthController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly appConfig: ApplicationConfig,
  ) {}

  /**
   * 200 when the database answers, 503 otherwise: for container health checks. With REDIS_URL the
   * answer also says `redis: 'up'|'down'`; Redis down is 200 with `degraded: true` (this instance
   * still serves; events no longer reach the other instances' sockets: docs/operations.md).
   */
  @Public()
  @RawResponse()
  @Get()
  async health(@Res() reply: FastifyReply) {
    const started = Date.now();
    // The socket.io adapter (socket.adapter.ts) owns the Redis clients; its watch answers for them.
    const watch = this.cfg.redisUrl ? (this.appConfig.getIoAdapter() as { redis?: RedisWatch } | null)?.redis : undefined;
    const redisState = this.cfg.redisUrl ? (watch ? watch.status() : Promise.resolve('down' as const)) : undefined;
    try {
      await this.db.query('SELECT 1');
      const redis = await redisState;
      reply.status(200).send({
        status: 'ok',
        result: { db: 'up', db_ms: Date.now() - started, ...(redis ? { redis } : {}), degraded: redis === 'down', uptime_s: Math.round(process.uptime()) },
      });
    } catch (err) {
      await redisState;
      if (isDbUnreachable(err)) dbOutage.noteUnreachable(err);
      reply.status(503).send({ status: 'db', message: `Database unreachable: ${(err as Error).message}`, code: 503 });
    }
  }
}
