/**
 * Content I helpers (issue 13, docs/content.md): the import file parsers (JSON lines, RFC 4180 CSV),
 * row validation with row numbers, link finding of the block screens (default patterns, overlaps,
 * Unicode ids) and the numeric-id rule of 001 §5.
 */
import { DEFAULT_LINK_PATTERNS, findLinks } from '../../src/contracts/content.js';
import { parseCsv, parseImportFile, validateRows } from '../../src/modules/content/content-import.js';
import { numericIds, titleWords } from '../../src/modules/content/content.service.js';

test('CSV: quotes, doubled quotes, commas and line breaks inside quotes, CRLF; empty cells unset', () => {
  expect(parseCsv('a,b\r\n"x, y","say ""hi"""\n"multi\nline",2')).toEqual([['a', 'b'], ['x, y', 'say "hi"'], ['multi\nline', '2']]);
  expect(parseImportFile('books.csv', 'Id_book,book_title,views\n7,"Тёмные аллеи",\n\n8,Мир,12\n')).toEqual([
    { Id_book: '7', book_title: 'Тёмные аллеи', views: undefined }, { Id_book: '8', book_title: 'Мир', views: '12' },
  ]);
});

test('JSON lines: one object a line, blank lines skipped, a broken line refused by its row number', () => {
  const rows = parseImportFile('a.jsonl', '{"Id_author": 1, "a_fio": "Бунин И. А."}\n\nnot json\n{"Id_author": "2"}\n');
  const v = validateRows('authors', rows);
  expect(v.good.map((g) => [g.n, g.row])).toEqual([[1, { Id_author: 1, a_fio: 'Бунин И. А.' }], [3, { Id_author: 2 }]]);
  expect(v.refused).toEqual([{ row: 2, message: 'line 2: not JSON' }]);
  expect(validateRows('pages', [{ bid: 1, num: 1, body: null }, { bid: 1 }], 100).refused).toEqual([{ row: 102, message: expect.stringMatching(/num is required/) }]);
});

test('findLinks: default patterns per variant, in text order, trailing punctuation left out, Unicode ids kept for skipping', () => {
  const body = 'Удалите https://a.example/read/15, https://a.example/author/7; https://a.example/view/книга и http://b.example/owner/9';
  const block = findLinks(body, DEFAULT_LINK_PATTERNS.filter((p) => p.variant === 'block'));
  expect(block.map((l) => [l.kind, l.type, l.id])).toEqual([['read', 'book', '15'], ['author', 'author', '7'], ['view', 'book', 'книга']]);
  expect(body.slice(block[0].start, block[0].end)).toBe('https://a.example/read/15');
  const git = findLinks(body, DEFAULT_LINK_PATTERNS.filter((p) => p.variant === 'git'));
  expect(git.map((l) => [l.kind, l.id])).toEqual([['view', 'книга'], ['owner', '9']]);
  expect(findLinks('x', [{ variant: 'block', kind: 'bad', type: 'book', pattern: '(' }])).toEqual([]);
  expect(findLinks('ab12', [{ variant: 'block', kind: 'a', type: 'book', pattern: 'ab(\\d+)' }, { variant: 'block', kind: 'b', type: 'book', pattern: 'b(\\d+)' }]).map((l) => l.kind)).toEqual(['a']);
});

test('numericIds: digits only, de-duplicated, within INT range; titleWords folds case and ё', () => {
  expect(numericIds([5, '5', ' 6 ', 'abc', '', '1e3', '0', '-1', '2147483648', '2147483647'])).toEqual([5, 6, 2147483647]);
  expect(titleWords('Тёмные Аллеи, т. 2')).toEqual(['темные', 'аллеи', 'т', '2']);
});
