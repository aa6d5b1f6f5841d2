/**
 * Demo content (issue 13): 18 categories, 600 authors of whom about a fifth appear again as
 * real-looking duplicates (ё written е, initials, word order swapped, upper case, stray
 * punctuation), 3,000 books with ids ending at 906702 (the /book/list default filter) and 1 to 4
 * pages each, a few blocked ones, and 30 days of daily plus 48 hours of hourly stat rows per
 * category. Deterministic (seeded PRNG) and written through the content import's upsert, so a second
 * run leaves the same rows; the stat rows of the demo categories are replaced as a whole.
 */
import type { DataSource } from 'typeorm';
import { importRows } from '../modules/content/content-import.js';
import type { Seeder } from './seeders.js';
import { prng } from '../core/prng.js';

export const DEMO_LAST_BOOK_ID = 906702;
export const DEMO_BOOKS = 3000;
const AUTHORS = 600;
const AUTHOR_BASE = 70001;


const LAST = ['Фёдоров', 'Королёв', 'Семёнов', 'Иванов', 'Петров', 'Смирнов', 'Кузнецов', 'Попов', 'Соколов', 'Лебедев', 'Козлов', 'Новиков', 'Морозов', 'Волков', 'Алексеев', 'Пугачёв', 'Зайцев', 'Павлов', 'Голубев', 'Виноградов', 'Богданов', 'Воробьёв', 'Михайлов', 'Беляев', 'Тарасов'];
const FIRST_M = ['Пётр', 'Сергей', 'Михаил', 'Артём', 'Фёдор', 'Андрей', 'Семён', 'Игорь', 'Глеб'];
const FIRST_F = ['Алёна', 'Анна', 'Ольга', 'Наталья', 'Елена', 'Татьяна', 'Мария', 'Дарья', 'Ксения'];
const PATR_M = ['Ильич', 'Петрович', 'Фёдорович', 'Семёнович', 'Алексеевич', 'Сергеевич'];
const PATR_F = ['Сергеевна', 'Андреевна', 'Михайловна', 'Игоревна', 'Олеговна', 'Фёдоровна'];
const ADJ = ['Тёмный', 'Последний', 'Зелёный', 'Тихий', 'Северный', 'Забытый', 'Солнечный', 'Ночной', 'Далёкий', 'Белый', 'Железный', 'Хрустальный', 'Морской', 'Старый', 'Весенний'];
const NOUN = ['лес', 'берег', 'город', 'сад', 'ветер', 'путь', 'остров', 'дом', 'замок', 'перевал', 'мост', 'маяк', 'огонь', 'сон', 'полдень'];
const TAIL = ['', '', '', ' и тени', ': начало', '. Книга вторая', ' на рассвете', ' и его хранитель', ' (сборник)', ' в тумане'];
const CATS = ['Фэнтези', 'Детективы', 'Любовные романы', 'Фантастика', 'Классика', 'Приключения', 'Поэзия', 'Ужасы', 'Исторические романы', 'Юмор', 'Триллеры', 'Мистика', 'Бизнес', 'Психология', 'Детские книги', 'Публицистика', 'Научпоп', 'Драма'];

/** A real-looking variant of a full name "Фамилия Имя Отчество". */
function variant(fio: string, kind: number): string {
  const [l, f, p] = fio.split(' ');
  switch (kind % 5) {
    case 0: return fio.replace(/ё/g, 'е').replace(/Ё/g, 'Е');
    case 1: return `${l} ${f[0]}. ${p[0]}.`;
    case 2: return `${f} ${p} ${l}`;
    case 3: return `${l.toUpperCase()} ${f[0]}.${p[0]}.`;
    default: return `${f} ${l},`;
  }
}

export const contentSeeder: Seeder = {
  name: 'content',
  async run(ds: DataSource, log) {
    const rnd = prng(13);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
    const cats = CATS.map((t, i) => ({
      Id_cat: i + 1, cat_title: t, cat_short_title: t.split(' ')[0], cat_h1: `Книги: ${t.toLowerCase()}`, meta_title: `${t} — читать онлайн`,
      meta_h1: t, meta_description: `Лучшие книги жанра «${t}».`, cat_description: `Подборка книг жанра «${t}».`, cat_body: `<p>${t}: новинки и классика жанра.</p>`,
      cat_views: Math.floor(rnd() * 50000), rating_day: Math.floor(rnd() * 500),
    }));
    const authors: { Id_author: number; a_fio: string }[] = [];
    const originals: string[] = [];
    for (let i = 0; i < AUTHORS; i++) {
      const dup = i >= 60 && rnd() < 0.2;
      const female = rnd() < 0.5;
      const name = dup ? variant(originals[Math.floor(rnd() * originals.length)], i)
        : female ? `${pick(LAST)}а ${pick(FIRST_F)} ${pick(PATR_F)}` : `${pick(LAST)} ${pick(FIRST_M)} ${pick(PATR_M)}`;
      if (!dup) originals.push(name);
      authors.push({ Id_author: AUTHOR_BASE + i, a_fio: name });
    }
    const books: Record<string, unknown>[] = [];
    const pages: Record<string, unknown>[] = [];
    const first = DEMO_LAST_BOOK_ID - DEMO_BOOKS + 1;
    for (let id = first; id <= DEMO_LAST_BOOK_ID; id++) {
      const nPages = 1 + Math.floor(rnd() * 4);
      const title = `${pick(ADJ)} ${pick(NOUN)}${pick(TAIL)}`;
      const blocked = rnd() < 0.03 ? pick([1, 2, 3, 4, 7, 10]) : 0;
      books.push({
        Id_book: id, book_title: title, book_description: `${title}: роман о выборе и доме.`, book_owner: AUTHOR_BASE + Math.floor(rnd() * AUTHORS),
        book_cat: 1 + Math.floor(rnd() * CATS.length), views: Math.floor(rnd() ** 3 * 100000), book_pages: nPages, show_procent: Math.floor(rnd() * 100),
        public: blocked, git: `g${id.toString(36)}`,
      });
      for (let n = 1; n <= nPages; n++) pages.push({ bid: id, num: n, body: `<p>${title}. Страница ${n}.</p><p>Текст главы ${n}: ветер шёл с севера, и город ждал рассвета.</p>` });
    }
    const run = async (entity: 'books' | 'pages' | 'categories' | 'authors', rows: Record<string, unknown>[]) => {
      let ins = 0; let upd = 0;
      for (let i = 0; i < rows.length; i += 2000) {
        const r = await importRows(ds, entity, rows.slice(i, i + 2000), true, i);
        if (r.refused.length) throw new Error(`${entity}: demo row ${r.refused[0].row} refused: ${r.refused[0].message}`);
        ins += r.inserted; upd += r.updated;
      }
      log(`${entity}: ${ins} inserted, ${upd} updated`);
    };
    await run('categories', cats);
    await run('authors', authors);
    await run('books', books);
    await run('pages', pages);
    // count_books from the placements; stat history replaced as a whole for the demo categories.
    await ds.transaction(async (m) => {
      for (const c of cats) {
        const n = Number((await m.query('SELECT COUNT(*) AS n FROM book_cat_relay WHERE Id_cat = ?', [c.Id_cat]))[0]?.n ?? 0);
        await m.query('UPDATE book_cats SET count_books = ? WHERE Id_cat = ?', [n, c.Id_cat]);
      }
      const ids = cats.map((c) => c.Id_cat);
      await m.query(`DELETE FROM content_stats WHERE Id IN (${ids.map(() => '?').join(',')})`, ids);
      const today = Math.floor(Date.UTC(2026, 0, 31) / 86_400_000);
      const rows: unknown[][] = [];
      for (const c of cats) {
        for (let d = 29; d >= 0; d--) {
          const shows = 500 + Math.floor(rnd() * 5000);
          rows.push([today - d, 2, 1 + Math.floor(rnd() * 20), Math.floor(rnd() * 1000), c.Id_cat, books.filter((b) => b.book_cat === c.Id_cat).slice(0, 5).map((b) => b.Id_book).join(','), shows, Math.floor(shows * rnd() * 0.08)]);
        }
        for (let h = 47; h >= 0; h--) {
          const shows = 20 + Math.floor(rnd() * 300);
          rows.push([today * 24 - h, 1, 1 + Math.floor(rnd() * 20), Math.floor(rnd() * 100), c.Id_cat, '', shows, Math.floor(shows * rnd() * 0.08)]);
        }
      }
      for (let i = 0; i < rows.length; i += 200) {
        const part = rows.slice(i, i + 200);
        await m.query(`INSERT INTO content_stats (time, type, res2, res3, Id, items, item, item2) VALUES ${part.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`, part.flat());
      }
      log(`content_stats: ${rows.length} rows`);
    });
    return `${cats.length} categories, ${authors.length} authors, ${books.length} books, ${pages.length} pages`;
  },
};
