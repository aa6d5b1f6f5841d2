/**
 * Demo banners (docs/content.md "Banners"): five banners (one stopped) with an image made here and a
 * month of views and clicks per day. Idempotent: a banner is made only when no banner has its title,
 * and the day rows are written, not added (a second run leaves the same counters).
 */
import sharp from 'sharp';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../../config/config.js';
import { BANNER_CHART_DAYS } from '../contracts/banners.js';
import { SecretBox } from '../core/crypto/secret-box.js';
import { LeaseService } from '../core/lease.service.js';
import { StorageService } from '../core/storage/storage.service.js';
import { BannerEntity } from '../modules/banners/banners.entities.js';
import { BannersService } from '../modules/banners/banners.service.js';
import { StreamBatchEntity, StreamSiteEntity } from '../modules/input-stream/input-stream.entities.js';
import { InputStreamService } from '../modules/input-stream/input-stream.service.js';
import type { Seeder } from './seeders.js';

const DEMO = [
  { title: 'Новинки недели', description: 'Свежие книги каждую неделю', target: 'https://books.example/new', rate: 20, status: 0, color: '#0d6efd', views: 4200, ctr: 0.021 },
  { title: 'Аудиокниги со скидкой', description: 'Скидка 30% на аудиокниги', target: 'https://books.example/audio', rate: 10, status: 0, color: '#198754', views: 2600, ctr: 0.034 },
  { title: 'Подписка на месяц', description: 'Первый месяц бесплатно', target: 'https://books.example/subscribe', rate: 15, status: 0, color: '#6f42c1', views: 3100, ctr: 0.012 },
  { title: 'Конкурс рецензий', description: 'Напишите рецензию и выиграйте книгу', target: 'https://books.example/contest', rate: 5, status: 0, color: '#fd7e14', views: 900, ctr: 0.045 },
  { title: 'Летняя распродажа', description: 'Акция закончилась', target: 'https://books.example/summer', rate: 10, status: 1, color: '#6c757d', views: 1500, ctr: 0.018 },
];

/** A 468x60 banner picture with its title (SVG rendered by sharp: trusted demo input, stored re-encoded like any upload). */
async function picture(title: string, color: string): Promise<string> {
  const esc = title.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="468" height="60"><rect width="468" height="60" rx="6" fill="${color}"/><text x="234" y="38" font-family="sans-serif" font-size="22" fill="#fff" text-anchor="middle">${esc}</text></svg>`;
  return (await sharp(Buffer.from(svg)).png().toBuffer()).toString('base64');
}

export const bannersSeeder: Seeder = {
  name: 'banners',
  async run(ds: DataSource, log) {
    const cfg = loadConfig(process.env);
    const stream = new InputStreamService(cfg, ds, ds.getRepository(StreamSiteEntity), ds.getRepository(StreamBatchEntity), new SecretBox(cfg.secretKey), new LeaseService(ds));
    const banners = new BannersService(ds, ds.getRepository(BannerEntity), new StorageService(cfg, ds), stream);
    const today = Math.floor(Date.now() / 1000 / 86_400);
    let made = 0;
    const rows: { Idb: number; ts: number; views: number; clicks: number }[] = [];
    for (const [i, d] of DEMO.entries()) {
      let b = await ds.getRepository(BannerEntity).findOneBy({ title: d.title });
      if (!b) {
        const { Idb } = await banners.save({ title: d.title, description: d.description, target: d.target, rate: d.rate, status: d.status as 0 | 1, img_data: await picture(d.title, d.color) });
        b = await ds.getRepository(BannerEntity).findOneByOrFail({ Idb });
        made++;
      }
      const lastDay = d.status === 1 ? today - 6 : today;
      for (let k = BANNER_CHART_DAYS - 1; k >= 0; k--) {
        const day = today - k;
        if (day > lastDay) continue;
        const wave = 1 + 0.35 * Math.sin((day + i * 3) / 3.5);
        const weekend = [3, 4].includes(day % 7) ? 0.75 : 1;
        const views = Math.round(d.views * wave * weekend * (day === today ? 0.4 : 1));
        const clicks = Math.round(views * d.ctr * (1 + 0.3 * Math.cos((day + i) / 2)));
        rows.push({ Idb: b.Idb, ts: day, views, clicks });
      }
    }
    await banners.addDays(rows);
    log(`${made} banners made, ${rows.length} day rows written`);
    return `${DEMO.length} banners (${made} new), ${BANNER_CHART_DAYS} days of counters`;
  },
};
