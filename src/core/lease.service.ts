import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';

/**
 * A named lease held by one instance until a time: scheduled work that must run once across several
 * instances takes the lease first. One UPDATE decides; works on SQLite and MySQL alike.
 */
@Injectable()
export class LeaseService {
  readonly owner = randomUUID();

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async acquire(name: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const until = now + ttlMs;
    const runner = this.db.createQueryRunner();
    try {
      const r = await runner.query(
        'UPDATE leases SET owner = ?, until = ? WHERE name = ? AND (until < ? OR owner = ?)',
        [this.owner, until, name, now, this.owner],
        true,
      );
      if ((r.affected ?? 0) > 0) return true;
      try {
        await runner.query('INSERT INTO leases (name, owner, until) VALUES (?, ?, ?)', [name, this.owner, until]);
        return true;
      } catch {
        return false; // another instance holds it
      }
    } finally {
      await runner.release();
    }
  }

  /** Gives up a lease this instance holds (work done early: another instance may take it at once). */
  async release(name: string): Promise<void> {
    await this.db.query('UPDATE leases SET until = ? WHERE name = ? AND owner = ?', [0, name, this.owner]);
  }
}
