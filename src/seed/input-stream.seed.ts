/**
 * Demo input stream (docs/input-stream.md): a demo site and 28 days of shows and clicks for the 15
 * most viewed public demo books of each category, a few reports a day with drifting positions and
 * CTR. Written through InputStreamService.ingest, one batch per day with the batch id 'demo-<date>',
 * so a second run the same day counts nothing twice (the batch ids are already received).
 */
import type { DataSource } from 'typeorm';
import { loadConfig } from '../../config/config.js';
import { STREAM_MAX_AGE_DAYS, type StreamEvent } from '../contracts/input-stream.js';
import { SecretBox } from '../core/crypto/secret-box.js';
import { LeaseService } from '../core/lease.service.js';
import { StreamBatchEntity, StreamSiteEntity } from '../modules/input-stream/input-stream.entities.js';
import { InputStreamService } from '../modules/input-stream/input-stream.service.js';
import { DEMO_BOOKS, DEMO_LAST_BOOK_ID } from './content.seed.js';
import type { Seeder } from './seeders.js';

const SITE = 'demo.books.example';
const PER_CAT = 15;
const DAYS = STREAM_MAX_AGE_DAYS - 2;
const REPORTS_PER_DAY = 4;

export const inputStreamSeeder: Seeder = {
  name: 'input-stream',
  async run(ds: DataSource, log) {
    const cfg = loadConfig(process.env);
    const stream = new InputStreamService(cfg, ds, ds.getRepository(StreamSiteEntity), ds.getRepository(StreamBatchEntity), new SecretBox(cfg.secretKey), new LeaseService(ds));
    let site = await ds.getRepository(StreamSiteEntity).findOneBy({ name: SITE });
    if (!site) {
      await stream.saveSite({ name: SITE });
      site = await ds.getRepository(StreamSiteEntity).findOneByOrFail({ name: SITE });
      log(`site ${SITE} made (its token: rotate it on /input_stream/sites to get one)`);
    }
    const rows: { Id_cat: unknown; Id_book: unknown }[] = await ds.query(
      'SELECT book_cat AS Id_cat, Id_book FROM books WHERE Id_book BETWEEN ? AND ? AND public = 0 AND book_cat > 0 ORDER BY views DESC, Id_book',
      [DEMO_LAST_BOOK_ID - DEMO_BOOKS + 1, DEMO_LAST_BOOK_ID],
    );
    const byCat = new Map<number, number[]>();
    for (const r of rows) {
      const list = byCat.get(Number(r.Id_cat)) ?? [];
      if (list.length < PER_CAT) list.push(Number(r.Id_book));
      byCat.set(Number(r.Id_cat), list);
    }
    const now = Math.floor(Date.now() / 1000);
    const today = Math.floor(now / 86_400);
    let accepted = 0;
    let duplicates = 0;
    for (let d = DAYS - 1; d >= 0; d--) {
      const day = today - d;
      const events: StreamEvent[] = [];
      for (const [cat, books] of byCat) {
        books.forEach((book, rank) => {
          for (let k = 0; k < REPORTS_PER_DAY; k++) {
            const time = Math.min(now, day * 86_400 + k * 6 * 3600 + ((book * 7 + k * 13) % 3600));
            const wave = Math.sin((day + book) / 4);
            const pos = Math.max(1, rank + 1 + Math.round(wave * 2));
            const shows = Math.round((400 / (rank + 1)) * (1.2 + wave * 0.3)) + ((book + k) % 17);
            const clicks = Math.min(shows, Math.round(shows * (0.02 + ((book + cat) % 9) / 100 + Math.max(0, wave) * 0.02)));
            events.push({ cat, book, pos, shows, clicks, time });
          }
        });
      }
      if (!events.length) continue;
      const date = new Date(day * 86_400_000).toISOString().slice(0, 10);
      const r = await stream.ingest(site, { batch_id: `demo-${date}`, events });
      if (r.duplicate) duplicates++;
      else accepted += r.accepted;
    }
    return `${accepted} events in ${DAYS - duplicates} new daily batches (${duplicates} already received) for ${byCat.size} categories`;
  },
};
