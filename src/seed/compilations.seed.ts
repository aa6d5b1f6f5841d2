/**
 * Demo compilations (issue 19, docs/content.md "Compilations"): 24 compilations of 8 to 40 public demo
 * books, related to one or two demo categories, each saved twice through CompilationsService (so each
 * has a version in its history), with rich-text bodies. Idempotent: the demo compilations (found by
 * their titles) are deleted with their items, relays and history, then made again; deterministic.
 */
import type { DataSource } from 'typeorm';
import { prng } from '../core/prng.js';
import { CompilationsService } from '../modules/compilations/compilations.service.js';
import { DEMO_BOOKS, DEMO_LAST_BOOK_ID } from './content.seed.js';
import type { Seeder } from './seeders.js';

const THEMES = [
  'Лучшие новинки недели', 'Книги для долгой зимы', 'Что почитать в отпуске', 'Классика, которую стоит перечитать', 'Романы о море',
  'Истории для вечера', 'Фантастика о будущем', 'Детективы с неожиданным финалом', 'Книги, которые читают все', 'Тихое чтение',
  'Приключения для всей семьи', 'Мистика и тайны', 'Выбор редакции', 'Короткие романы на выходные', 'Книги о дружбе',
  'Сильные героини', 'Исторические саги', 'Смешные книги', 'Триллеры на одну ночь', 'Поэзия о любви',
  'Городские истории', 'Книги о дороге', 'Сказки для взрослых', 'Открытия года',
];
const PREFIX = 'Подборка: ';

export const compilationsSeeder: Seeder = {
  name: 'compilations',
  async run(ds: DataSource, log) {
    const svc = new CompilationsService(ds);
    const titles = THEMES.map((t) => PREFIX + t);
    const old: { id: unknown }[] = await ds.query(`SELECT Id_compilation AS id FROM compilations WHERE meta_title IN (${titles.map(() => '?').join(', ')})`, titles);
    for (const r of old) await svc.remove({ Id_compilation: Number(r.id) });
    if (old.length) log(`${old.length} demo compilations removed to be made again`);
    const books: { id: unknown; cat: unknown }[] = await ds.query(
      'SELECT Id_book AS id, book_cat AS cat FROM books WHERE Id_book BETWEEN ? AND ? AND public = 0 ORDER BY views DESC, Id_book',
      [DEMO_LAST_BOOK_ID - DEMO_BOOKS + 1, DEMO_LAST_BOOK_ID],
    );
    const cats: { id: unknown }[] = await ds.query('SELECT Id_cat AS id FROM book_cats ORDER BY Id_cat LIMIT 18');
    if (!books.length) return 'no demo books: run the content seeder first';
    const rnd = prng(19);
    let items = 0;
    for (const [i, theme] of THEMES.entries()) {
      const catIds = cats.length ? [Number(cats[i % cats.length].id), ...(i % 3 === 0 && cats.length > 1 ? [Number(cats[(i + 5) % cats.length].id)] : [])] : [];
      const inCat = books.filter((b) => catIds.includes(Number(b.cat)));
      const pool = inCat.length >= 10 ? inCat : books;
      const n = 8 + Math.floor(rnd() * 33);
      const picked = new Set<number>();
      while (picked.size < Math.min(n, pool.length)) picked.add(Number(pool[Math.floor(rnd() ** 2 * pool.length)].id));
      const list = [...picked];
      const base = {
        meta_title: PREFIX + theme, meta_description: `${theme}: книги, собранные редакцией, с описаниями и отзывами читателей.`,
        meta_h1: theme, title_short: theme.split(' ').slice(0, 2).join(' '), type: (i % 4 === 3 ? 2 : 1) as 1 | 2,
        body_top: `<p>${theme} — <strong>${list.length}</strong> книг, которые мы выбрали для вас.</p>`,
        body_bottom: '<p>Подборка обновляется: <em>заглядывайте снова</em>.</p>', relay: catIds,
      };
      // The first version had fewer books; the second (the current one) the whole list: one history entry each.
      const { Id_compilation } = await svc.save({ ...base, items: list.slice(0, Math.max(1, list.length - 5)) });
      await svc.save({ ...base, Id_compilation, items: list });
      items += list.length;
    }
    return `${THEMES.length} compilations with ${items} items`;
  },
};
