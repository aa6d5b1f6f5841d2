/**
 * Author names: normalising, index keys and the pairwise check that finds duplicate authors
 * (issue 13 "Candidates are found by the console", docs/authors.md "Matching rules"). Pure functions,
 * no I/O: the candidate index (author-candidates.ts) and the unit tests use them alike.
 *
 * A name becomes tokens: lower case, 'ё' read as 'е', every run of characters that are not letters or
 * digits (dots, commas, dashes, quotes, brackets, spaces) a separator. Two names are candidates when
 *  - their tokens are the same multiset (reasons: 'case', 'ё/е', 'punctuation', 'word order' — each
 *    named only when it was needed to make them equal; 'same name' when they were equal as written), or
 *  - their tokens pair up one to one where each pair is equal or one is the initial of the other
 *    ('initials'), with at least one full word equal on both sides; a name of three words may lose one
 *    word against a name of two ('middle name missing'), as in 'Толстой Лев Николаевич' / 'Лев Толстой'.
 * Index keys are built so that every such pair shares at least one key: `f:` the sorted tokens; `i:` a
 * full word with the sorted initials of the other words; `d:` a full word with the initial of one other
 * word, for two-word names and for three-word names with one word dropped. Inside a bucket only pairs
 * that can match are checked: in `i:` buckets pairs where one name has an initial (two names of full
 * words only match as equal multisets), in `d:` buckets pairs of a two-word and a three-word name.
 */

/** The reasons a candidate can carry, in the order they are listed. */
export const MATCH_REASONS = ['same name', 'case', 'ё/е', 'punctuation', 'word order', 'initials', 'middle name missing'] as const;
export type MatchReason = (typeof MATCH_REASONS)[number];

/** Names of more words than this are compared as written (sorted tokens) but get no initials keys. */
const MAX_WORDS_FOR_INITIALS = 4;
const SEPARATOR = /[^\p{L}\p{N}]+/u;

const collapse = (s: string) => s.replace(/\s+/gu, ' ').trim();
const yo = (s: string) => s.replace(/ё/g, 'е').replace(/Ё/g, 'Е');

/** The tokens of a name: lower case, ё as е, split on anything that is not a letter or digit. */
export function nameTokens(name: string): string[] {
  return yo(name.toLowerCase()).split(SEPARATOR).filter(Boolean);
}

/** The canonical form of a name: its tokens sorted and joined by one space ('' for an empty name). */
export function normalizeName(name: string): string {
  return nameTokens(name).sort().join(' ');
}

/** One character (a letter outside the BMP is two UTF-16 units). */
const isInitial = (t: string) => t.length === 1 || (t.length === 2 && t.codePointAt(0)! > 0xffff);
const first = (t: string) => (t.codePointAt(0)! > 0xffff ? t.slice(0, 2) : t[0]);

/**
 * The keys under which a name is indexed: two names that `compareNames` accepts share at least one.
 * Empty for a name without letters or digits.
 */
export function nameKeys(name: string): string[] {
  return keysOfTokens(nameTokens(name));
}

function keysOfTokens(tokens: string[]): string[] {
  if (!tokens.length) return [];
  const keys = new Set<string>(['f:' + [...tokens].sort().join(' ')]);
  if (tokens.length >= 2 && tokens.length <= MAX_WORDS_FOR_INITIALS) {
    tokens.forEach((t, i) => {
      if (isInitial(t)) return;
      const others = tokens.filter((_, j) => j !== i).map(first).sort();
      keys.add(`i:${t}|${others.join('')}`);
      // 'middle name missing': a two-word name meets the three-word names that lose one word.
      if (others.length === 1) keys.add(`d:${t}|${others[0]}`);
      if (others.length === 2) for (const o of others) keys.add(`d:${t}|${o}`);
    });
  }
  return [...keys];
}

/** Tokens of a name with some of the normalisations left out (for naming the ones that were needed). */
function tokensWithout(name: string, skip: 'case' | 'ё/е' | 'punctuation' | 'word order' | null): string[] {
  let s = collapse(name);
  if (skip !== 'case') s = s.toLowerCase();
  if (skip !== 'ё/е') s = yo(s);
  const tokens = skip === 'punctuation' ? s.split(' ').filter(Boolean) : s.split(SEPARATOR).filter(Boolean);
  return skip === 'word order' ? tokens : tokens.sort();
}
const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((t, i) => t === b[i]);

/**
 * Pairs the words of `short` with distinct words of `long`: equal, or one the initial of the other.
 * Answers whether every word of `short` found a partner, whether an initial was used, and whether a
 * full word is equal on both sides. Small inputs (at most 4 words): a plain backtracking search.
 */
function pairUp(short: string[], long: string[]): { initials: boolean } | null {
  const used = new Array<boolean>(long.length).fill(false);
  let best: { initials: boolean } | null = null;
  const walk = (i: number, initials: boolean, fullEqual: boolean): void => {
    if (best && !best.initials) return;
    if (i === short.length) {
      if (fullEqual && (!best || (best.initials && !initials))) best = { initials };
      return;
    }
    const a = short[i];
    for (let j = 0; j < long.length; j++) {
      if (used[j]) continue;
      const b = long[j];
      let eq = false;
      let ini = false;
      if (a === b) eq = true;
      else if ((isInitial(a) && first(b) === a) || (isInitial(b) && first(a) === b)) ini = true;
      else continue;
      used[j] = true;
      walk(i + 1, initials || ini, fullEqual || (eq && !isInitial(a)));
      used[j] = false;
    }
  };
  walk(0, false, false);
  return best;
}

/**
 * Whether two author names look like the same author, and why: the reasons in MATCH_REASONS order,
 * or null when they do not match. Empty names never match.
 */
export function compareNames(a: string, b: string): MatchReason[] | null {
  const ta = nameTokens(a);
  const tb = nameTokens(b);
  if (!ta.length || !tb.length) return null;
  if (sameList([...ta].sort(), [...tb].sort())) {
    if (collapse(a) === collapse(b)) return ['same name'];
    const needed = (['case', 'ё/е', 'punctuation', 'word order'] as const).filter((skip) => !sameList(tokensWithout(a, skip), tokensWithout(b, skip)));
    return needed.length ? needed : ['same name'];
  }
  if (ta.length > MAX_WORDS_FOR_INITIALS || tb.length > MAX_WORDS_FOR_INITIALS) return null;
  const [short, long] = ta.length <= tb.length ? [ta, tb] : [tb, ta];
  if (long.length - short.length > 1) return null;
  if (long.length !== short.length && (short.length < 2 || long.length !== 3)) return null;
  const pair = pairUp(short, long);
  if (!pair) return null;
  const reasons: MatchReason[] = [];
  if (pair.initials) reasons.push('initials');
  if (long.length !== short.length) reasons.push('middle name missing');
  return reasons.length ? reasons : null; // equal multisets were handled above
}

export interface NamedAuthor {
  Id_author: number;
  a_fio: string;
}
export interface Candidate {
  Id_author: number;
  a_fio: string;
  reasons: MatchReason[];
}

/** A bucket larger than this (a very common key, such as one surname with one initial) is skipped for initials keys. */
export const MAX_BUCKET = 400;

/**
 * The candidate index over a list of authors: each normalised key maps to the authors that have it,
 * so finding one author's candidates touches only its buckets (not the whole list).
 */
export class CandidateIndex {
  private readonly byKey = new Map<string, number[]>();
  private readonly names = new Map<number, string>();
  /** Per author: bit 1 = has an initial, bits 2+ = number of words. */
  private readonly shape = new Map<number, number>();

  constructor(authors: Iterable<NamedAuthor>) {
    for (const a of authors) this.add(a);
  }

  get size(): number {
    return this.names.size;
  }

  add(a: NamedAuthor): void {
    const tokens = nameTokens(a.a_fio);
    this.names.set(a.Id_author, a.a_fio);
    this.shape.set(a.Id_author, (tokens.length << 1) | (tokens.some(isInitial) ? 1 : 0));
    for (const k of keysOfTokens(tokens)) {
      const list = this.byKey.get(k);
      if (list) list.push(a.Id_author);
      else this.byKey.set(k, [a.Id_author]);
    }
  }

  /** Whether two authors met in bucket `k` can match at all (see the module comment); `f:` buckets always. */
  private worth(k: string, x: number, y: number): boolean {
    if (k.charCodeAt(0) === 102 /* f */) return true;
    const sx = this.shape.get(x)!;
    const sy = this.shape.get(y)!;
    if (k.charCodeAt(0) === 105 /* i */) return ((sx | sy) & 1) === 1;
    return ((sx >> 1) === 2 && (sy >> 1) === 3) || ((sx >> 1) === 3 && (sy >> 1) === 2);
  }

  /** The candidates of one author (never itself), by id; `skip` ids are left out (e.g. marked not same). */
  candidatesOf(Id_author: number, skip: ReadonlySet<number> = new Set()): Candidate[] {
    const name = this.names.get(Id_author);
    if (name === undefined) return [];
    const seen = new Set<number>([Id_author]);
    const out: Candidate[] = [];
    for (const k of nameKeys(name)) {
      const list = this.byKey.get(k);
      if (!list || (k[0] !== 'f' && list.length > MAX_BUCKET)) continue;
      for (const other of list) {
        if (seen.has(other) || skip.has(other) || !this.worth(k, Id_author, other)) continue;
        const otherName = this.names.get(other)!;
        const reasons = compareNames(name, otherName);
        if (reasons) {
          seen.add(other);
          out.push({ Id_author: other, a_fio: otherName, reasons });
        }
      }
    }
    return out.sort((x, y) => x.Id_author - y.Id_author);
  }

  /**
   * The ids of every author with at least one candidate, ascending (the full pass). Walks the buckets,
   * not the authors: everyone in an `f:` bucket of two or more is a candidate of the others; in `i:` and
   * `d:` buckets the pairs that can match are checked (buckets over MAX_BUCKET skipped, as in candidatesOf).
   */
  withCandidates(): number[] {
    const ids = new Set<number>();
    const mark = (id: number) => ids.add(id);
    for (const [k, list] of this.byKey) {
      if (list.length < 2) continue;
      if (k[0] === 'f') list.forEach(mark);
      else if (list.length <= MAX_BUCKET) {
        // Only the members that can pair: for i:, those with an initial against everyone; for d:, two-word against three-word names.
        const lead = list.filter((id) => (k[0] === 'i' ? (this.shape.get(id)! & 1) === 1 : this.shape.get(id)! >> 1 === 2));
        for (const x of lead) {
          for (const y of list) {
            if (x === y || (ids.has(x) && ids.has(y)) || !this.worth(k, x, y)) continue;
            if (compareNames(this.names.get(x)!, this.names.get(y)!)) { mark(x); mark(y); }
          }
        }
      }
    }
    return [...ids].sort((x, y) => x - y);
  }
}
