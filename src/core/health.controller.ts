import { Controller, Get, Res } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import type { DataSource } from 'typeorm';
import { Public } from './auth/actor.js';
import { RawResponse } from './http/raw.js';

@Controller('health')
export class HealthController {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** 200 when the database answers, 503 otherwise: for container health checks. */
  @Public()
  @RawResponse()
  @Get()
  async health(@Res() res: Response) {
    const started = Date.now();
    try {
      await this.db.query('SELECT 1');
      res.status(200).json({ status: 'ok', result: { db: 'up', db_ms: Date.now() - started, uptime_s: Math.round(process.uptime()) } });
    } catch (err) {
      res.status(503).json({ status: 'db', message: `Database unreachable: ${(err as Error).message}`, code: 503 });
    }
  }
}
