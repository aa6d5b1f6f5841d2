/**
 * The author-name normaliser and candidate matcher (docs/authors.md "Matching rules"): tokens, keys,
 * the pairwise check with its reasons, and the index (bucket walk equals the brute-force pass).
 */
import { CandidateIndex, compareNames, MAX_BUCKET, nameKeys, nameTokens, normalizeName } from '../../src/modules/authors/author-names.js';

describe('nameTokens / normalizeName', () => {
  it('lower-cases, reads ё as е, splits on punctuation and sorts', () => {
    expect(nameTokens('  Фёдор  М. Достоевский ')).toEqual(['федор', 'м', 'достоевский']);
    expect(normalizeName('Достоевский, Фёдор (М.)')).toBe('достоевский м федор');
    expect(normalizeName('Jean-Paul   Sartre')).toBe('jean paul sartre');
    expect(normalizeName(' ... ')).toBe('');
    expect(nameKeys('---')).toEqual([]);
  });
});

describe('compareNames', () => {
  const cases: [string, string, string[] | null][] = [
    ['Лев Толстой', 'Лев Толстой', ['same name']],
    ['Лев  Толстой ', 'Лев Толстой', ['same name']],
    ['лев толстой', 'Лев Толстой', ['case']],
    ['Алёна Иванова', 'Алена Иванова', ['ё/е']],
    ['Толстой, Лев', 'Толстой Лев', ['punctuation']],
    ['Толстой Лев', 'Лев Толстой', ['word order']],
    ['ТОЛСТОЙ, Лёв', 'лев толстой', ['case', 'ё/е', 'punctuation', 'word order']],
    ['Л. Н. Толстой', 'Толстой Лев Николаевич', ['initials']],
    ['Толстой Л.Н.', 'Лев Николаевич Толстой', ['initials']],
    ['Лев Толстой', 'Толстой Лев Николаевич', ['middle name missing']],
    ['Л. Толстой', 'Толстой Лев Николаевич', ['initials', 'middle name missing']],
    ['Лев Толстой', 'Алексей Толстой', null],
    ['Лев Толстой', 'Лев Толстая', null],
    ['Л. Толстой', 'А. Толстой', null],
    ['Л. Н.', 'Лев Николаевич', null], // no full word equal on both sides
    ['Толстой', 'Толстой Лев Николаевич', null], // one word against three
    ['', 'Лев Толстой', null],
    ['Анна', 'Анна', ['same name']],
  ];
  it.each(cases)('%s ~ %s', (a, b, want) => {
    expect(compareNames(a, b)).toEqual(want);
    expect(compareNames(b, a)).toEqual(want === null ? null : want);
  });

  it('every accepted pair shares an index key', () => {
    for (const [a, b, want] of cases) {
      if (!want) continue;
      const kb = new Set(nameKeys(b));
      expect(nameKeys(a).some((k) => kb.has(k))).toBe(true);
    }
  });
});

describe('CandidateIndex', () => {
  const authors = [
    { Id_author: 1, a_fio: 'Толстой Лев Николаевич' },
    { Id_author: 2, a_fio: 'Л. Н. Толстой' },
    { Id_author: 3, a_fio: 'лев толстой' },
    { Id_author: 4, a_fio: 'Алексей Толстой' },
    { Id_author: 5, a_fio: 'Фёдор Достоевский' },
    { Id_author: 6, a_fio: 'Достоевский Федор' },
    { Id_author: 7, a_fio: 'Антон Чехов' },
    { Id_author: 8, a_fio: '' },
  ];
  const index = new CandidateIndex(authors);

  it('finds each author its candidates with the reasons, never itself', () => {
    expect(index.candidatesOf(1)).toEqual([
      { Id_author: 2, a_fio: 'Л. Н. Толстой', reasons: ['initials'] },
      { Id_author: 3, a_fio: 'лев толстой', reasons: ['middle name missing'] },
    ]);
    expect(index.candidatesOf(5)).toEqual([{ Id_author: 6, a_fio: 'Достоевский Федор', reasons: ['ё/е', 'word order'] }]);
    expect(index.candidatesOf(7)).toEqual([]);
    expect(index.candidatesOf(8)).toEqual([]);
    expect(index.candidatesOf(999)).toEqual([]);
    expect(index.candidatesOf(1, new Set([2])).map((c) => c.Id_author)).toEqual([3]);
  });

  it('the bucket walk lists the same authors as asking each one', () => {
    const brute = authors.filter((a) => index.candidatesOf(a.Id_author).length).map((a) => a.Id_author);
    expect(index.withCandidates()).toEqual(brute);
    expect(brute).toEqual([1, 2, 3, 5, 6]);
  });

  it('agrees with a brute-force pairwise pass on generated names', () => {
    const first = ['Иван', 'Пётр', 'Анна', 'Мария', 'Олег'];
    const last = ['Иванов', 'Петров', 'Сидорова', 'Смирнов'];
    const mid = ['Иванович', 'Петрович', 'Сергеевна'];
    const list: { Id_author: number; a_fio: string }[] = [];
    let id = 1;
    for (const f of first) for (const l of last) for (const m of mid) {
      const variant = id % 5;
      const name = variant === 0 ? `${l} ${f} ${m}` : variant === 1 ? `${f[0]}. ${m[0]}. ${l}` : variant === 2 ? `${f} ${l}` : variant === 3 ? `${l.toUpperCase()}, ${f}` : `${f} ${m} ${l}`;
      list.push({ Id_author: id++, a_fio: name });
    }
    const idx = new CandidateIndex(list);
    for (const a of list) {
      const brute = list.filter((b) => b.Id_author !== a.Id_author && compareNames(a.a_fio, b.a_fio)).map((b) => b.Id_author);
      expect(idx.candidatesOf(a.Id_author).map((c) => c.Id_author)).toEqual(brute);
    }
  });

  it('skips initials buckets larger than MAX_BUCKET but keeps exact-name buckets', () => {
    const many = Array.from({ length: MAX_BUCKET + 5 }, (_, i) => ({ Id_author: i + 1, a_fio: i % 2 ? `И. Иванов` : `Иван Иванов` }));
    const idx = new CandidateIndex(many);
    // Same written name: found through the f: key whatever the bucket size.
    expect(idx.candidatesOf(1).every((c) => c.a_fio === 'Иван Иванов')).toBe(true);
    expect(idx.candidatesOf(1).length).toBe(Math.ceil(many.length / 2) - 1);
  });
});
