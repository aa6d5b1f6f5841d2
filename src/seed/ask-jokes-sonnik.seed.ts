/**
 * Demo Q&A, joke categories and sonnik (issue 19): 32 questions with 0 to 4 answers each, 24 joke
 * categories with rich-text bodies, 60 sonnik categories over the alphabet with 0 to 45 posts each.
 * Deterministic (seeded PRNG). Joke and sonnik rows go through the content import's upsert (fixed
 * ids, bodies sanitised as the import does); the demo questions keep ids 900001 and up and are
 * deleted and written again with their answers, so a second run leaves the same rows.
 */
import type { DataSource } from 'typeorm';
import { prng } from '../core/prng.js';
import { importRows } from '../modules/content/content-import.js';
import type { Seeder } from './seeders.js';

export const DEMO_ASK_BASE = 900001;
const ASKS = 32;

const QUESTIONS = [
  'Как восстановить доступ к аккаунту?', 'Можно ли читать книги без интернета?', 'Как добавить книгу в избранное?', 'Почему книга недоступна в моём регионе?',
  'Как сообщить об ошибке в тексте?', 'Сколько книг можно скачать в день?', 'Как удалить историю чтения?', 'Как стать автором на сайте?',
  'Почему не открывается страница книги?', 'Как изменить размер шрифта при чтении?', 'Где найти новинки жанра?', 'Как работает рейтинг книг?',
  'Можно ли слушать аудиокниги?', 'Как пожаловаться на нарушение авторских прав?', 'Как отключить рекламу?', 'Как найти книгу по цитате?',
];
const ANSWERS = [
  'Откройте страницу входа и нажмите «Забыли пароль?»: ссылка придёт на почту.', 'Да, скачайте книгу в формате EPUB или FB2.',
  'Нажмите на значок сердца на странице книги.', 'Правообладатель ограничил показ книги в некоторых странах.',
  'Выделите фрагмент и нажмите Ctrl+Enter.', 'Ограничений нет, но мы следим за ботами.', 'Раздел «Профиль» → «История» → «Очистить».',
  'Напишите в поддержку: мы пришлём договор.', 'Обновите страницу или очистите кэш браузера.', 'Кнопка «Аа» в верхней панели читалки.',
  'Раздел «Новинки» в меню жанров.', 'Рейтинг считается по прочтениям за последние 30 дней.', 'Пока нет, но мы работаем над этим.',
  'Заполните форму на странице «Правообладателям».', 'Подписка отключает рекламу на всех страницах.', 'Введите цитату в кавычках в строку поиска.',
];
const JOKES = [
  'Про котов', 'Про программистов', 'Про Вовочку', 'Про Штирлица', 'Про тёщу', 'Про студентов', 'Про врачей', 'Про рыбалку', 'Про армию', 'Про школу',
  'Про работу', 'Про блондинок', 'Про водителей', 'Про учителей', 'Про семью', 'Про спорт', 'Про погоду', 'Про отпуск', 'Про деньги', 'Про соседей',
  'Про компьютеры', 'Про детей', 'Про животных', 'Про праздники',
];
const DREAMS = [
  'Аист', 'Арбуз', 'Автобус', 'Белка', 'Берег', 'Болото', 'Вода', 'Волк', 'Вокзал', 'Гора', 'Гроза', 'Гриб', 'Дом', 'Дождь', 'Дорога', 'Ель', 'Ёж',
  'Жемчуг', 'Жираф', 'Замок', 'Зеркало', 'Змея', 'Игла', 'Икона', 'Кошка', 'Ключ', 'Корабль', 'Лес', 'Луна', 'Лошадь', 'Мост', 'Море', 'Мёд',
  'Небо', 'Нож', 'Огонь', 'Озеро', 'Пожар', 'Поезд', 'Река', 'Рыба', 'Сад', 'Свадьба', 'Снег', 'Собака', 'Тигр', 'Туман', 'Улитка', 'Утка',
  'Фонарь', 'Хлеб', 'Цветы', 'Церковь', 'Часы', 'Чай', 'Шторм', 'Щука', 'Экзамен', 'Юла', 'Яблоко',
];
const translit: Record<string, string> = {
  а: 'a', б: 'b', в: 'v', г: 'g', д: 'd', е: 'e', ё: 'yo', ж: 'zh', з: 'z', и: 'i', й: 'y', к: 'k', л: 'l', м: 'm', н: 'n', о: 'o', п: 'p', р: 'r',
  с: 's', т: 't', у: 'u', ф: 'f', х: 'h', ц: 'ts', ч: 'ch', ш: 'sh', щ: 'sch', ъ: '', ы: 'y', ь: '', э: 'e', ю: 'yu', я: 'ya',
};
const uriOf = (s: string) => [...s.toLowerCase()].map((c) => translit[c] ?? c).join('');

export const askJokesSonnikSeeder: Seeder = {
  name: 'ask-jokes-sonnik',
  async run(ds: DataSource) {
    const rnd = prng(19);
    const last = DEMO_ASK_BASE + ASKS - 1;
    let answers = 0;
    await ds.transaction(async (m) => {
      await m.query('DELETE FROM ask_answers WHERE Id_ask BETWEEN ? AND ?', [DEMO_ASK_BASE, last]);
      await m.query('DELETE FROM asks WHERE Id BETWEEN ? AND ?', [DEMO_ASK_BASE, last]);
      for (let i = 0; i < ASKS; i++) {
        const Id = DEMO_ASK_BASE + i;
        const q = QUESTIONS[i % QUESTIONS.length] + (i >= QUESTIONS.length ? '\nУточнение: вопрос задан с мобильного приложения.' : '');
        await m.query('INSERT INTO asks (Id, question) VALUES (?, ?)', [Id, q]);
        const n = Math.floor(rnd() * 5);
        for (let k = 0; k < n; k++) {
          await m.query('INSERT INTO ask_answers (Id_ask, answer) VALUES (?, ?)', [Id, ANSWERS[(i + k * 5) % ANSWERS.length]]);
          answers++;
        }
      }
    });
    const jokes = JOKES.map((t, i) => ({
      cid: i + 1, title: t, meta_title: `Анекдоты ${t.toLowerCase()} — смешные и свежие`, meta_h1: `Анекдоты ${t.toLowerCase()}`,
      meta_description: `Подборка анекдотов ${t.toLowerCase()}: короткие, смешные, новые каждый день.`,
      cat_body: `<h2>Анекдоты ${t.toLowerCase()}</h2><p>Здесь собраны <strong>лучшие</strong> анекдоты ${t.toLowerCase()}.</p><ul><li>Короткие</li><li>Смешные</li><li><em>Свежие</em></li></ul>`,
    }));
    await importRows(ds, 'joke_cats', jokes);
    const cats = DREAMS.map((w, i) => ({
      Id: i + 1, letter: w[0], uri: uriOf(w), name: w,
      body: `<p>К чему снится <strong>${w.toLowerCase()}</strong>? Толкование сна по разным сонникам.</p><h3>Сонник Миллера</h3><p>${w} во сне — к переменам.</p>`,
    }));
    await importRows(ds, 'sonnik_cats', cats);
    const posts: Record<string, unknown>[] = [];
    cats.forEach((c, i) => {
      const n = Math.floor(rnd() ** 2 * 46);
      for (let k = 0; k < n; k++) {
        posts.push({ Id: (i + 1) * 1000 + k, Id_cat: c.Id, views: Math.floor(rnd() ** 3 * 20000), title: `К чему снится ${c.name.toLowerCase()} ${k + 1}`, title_ai: `Сон про ${c.name.toLowerCase()}: значение ${k + 1}` });
      }
    });
    await importRows(ds, 'sonnik_posts', posts);
    return `${ASKS} questions with ${answers} answers, ${jokes.length} joke categories, ${cats.length} sonnik categories with ${posts.length} posts`;
  },
};
