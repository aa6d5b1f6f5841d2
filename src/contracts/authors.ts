/**
 * Authors and their merge (001 §2 "/author/marge", "/content/authors", §3 Author, §4-§5 author merge,
 * §7 /author/*, §8 messages, §9 page sizes; docs/authors.md): shapes, input schemas, labels.
 */
import { z } from 'zod';
import { fieldKinds, flag, id, int, INT_MAX, text } from './fields.js';

/** 001 §9: authors 20 per page (filter default 10), merge view 10. */
export const AUTHORS_PAGE = 20;
export const AUTHORS_FILTER_DEFAULT = 10;
export const AUTHORS_MERGE_PAGE = 10;
export const AUTHORS_LIMIT_MAX = 100;
/** Books listed with each author when joinItems is asked for. */
export const AUTHOR_ITEMS_MAX = 10;
/** Ids in one comma list (new_relay, relay_marge, not_relay) at most. */
export const RELAY_MAX = 200;
/** Authors merged into one at once, at most. */
export const MERGE_MAX = 50;

/** 001 §8, verbatim. */
export const AUTHOR_MSG = {
  savedOk: 'Saved ok!',
  saveOk: 'Save ok',
  listUndefined: 'getAuthor list undefined',
  idsListUndefined: 'getAuthorsId list undefined',
  question: 'is this the same author?',
  savedList: 'Saved list',
} as const;

export interface AuthorCandidate {
  Id_author: number;
  a_fio: string;
  /** Why it matched: 'same name', 'case', 'ё/е', 'punctuation', 'word order', 'initials', 'middle name missing'. */
  reasons: string[];
  count_books: number;
}

/** Author of 001 §3; relays as comma lists of ids, as the spec keeps them. */
export interface AuthorView {
  Id_author: number;
  a_fio: string;
  opublic: number;
  new_relay: string;
  relay_marge: string;
  not_relay: string;
  agit: string;
  agit_public: number;
  count_books: number;
  /** Candidate duplicates not marked 'not same' (either side). */
  candidates: AuthorCandidate[];
  /** With joinItems: the author's first books. */
  items?: { Id_book: number; book_title: string; public: number }[];
}

export interface AuthorMergeView {
  Id: number;
  kept_id: number;
  kept_fio: string;
  merged: { Id_author: number; a_fio: string }[];
  books_count: number;
  user_name: string;
  created_at: string;
  undone_at: string | null;
}

// ---------------------------------------------------------------------------------------------
// Inputs

const page = int(1, INT_MAX, 'page').optional();

/** GET /author/get_list and author.getList (001 §7: limit, joinItems, getCount, only_double, page). */
export const AuthorListArgs = z.object({
  limit: int(1, AUTHORS_LIMIT_MAX, 'limit').optional(),
  page,
  p_: int(1, INT_MAX, 'p_').optional(),
  joinItems: flag('joinItems').optional(),
  getCount: flag('getCount').optional(),
  only_double: flag('only_double').optional(),
  /** Name filter (substring, case as the database compares it). */
  a_fio: text('a_fio', 190).optional(),
  Id_author: id('Id_author').optional(),
});

/**
 * A comma list of author ids as the spec keeps it ('12,15'), or a list of ids: entries trimmed,
 * empty ones dropped, duplicates removed (001 §5); anything else than digits is refused.
 */
export const relayList = (label: string) => {
  const s = z.union([z.string(), z.array(z.union([z.number(), z.string()]))], { error: `${label} must be a comma list of ids` })
    .transform((v, ctx): number[] => {
      const parts = (Array.isArray(v) ? v.map(String) : v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
      const out: number[] = [];
      for (const p of parts) {
        if (!/^\d{1,10}$/.test(p) || Number(p) < 1 || Number(p) > INT_MAX) {
          ctx.addIssue({ code: 'custom', message: `${label}: '${p.slice(0, 20)}' is not an author id` });
          return z.NEVER;
        }
        if (!out.includes(Number(p))) out.push(Number(p));
      }
      if (out.length > RELAY_MAX) {
        ctx.addIssue({ code: 'custom', message: `${label} has at most ${RELAY_MAX} ids` });
        return z.NEVER;
      }
      return out;
    });
  fieldKinds.add(s, { kind: 'idList', label, list: true });
  return s;
};

/** One author record of POST /author/update_list. Only the fields given change; other keys (count_books, candidates, ...) are ignored. */
export const AuthorRecord = z.object({
  Id_author: id('Id_author'),
  a_fio: text('a_fio', 190, { min: 1 }).optional(),
  opublic: int(0, INT_MAX, 'opublic').optional(),
  new_relay: relayList('new_relay').optional(),
  not_relay: relayList('not_relay').optional(),
  relay_marge: relayList('relay_marge').optional(),
  agit: text('agit', 190).optional(),
  agit_public: int(0, INT_MAX, 'agit_public').optional(),
});
export const AuthorUpdateList = z.array(AuthorRecord, { error: 'a list of author records is required' }).min(1, 'the list is empty').max(AUTHORS_LIMIT_MAX, `at most ${AUTHORS_LIMIT_MAX} records at once`);
/** author.updateList: the same list under `list` (an RPC argument is one value). */
export const AuthorUpdateListArgs = z.object({ list: AuthorUpdateList });

/** /author/getAuthors_id: authors by ids. */
export const AuthorIdsArgs = z.object({ ids: relayList('ids') });
/** /author/set_block: opublic 0 = public, otherwise blocked (the block range). */
export const AuthorSetBlockArgs = z.object({ Id_author: id('Id_author'), opublic: int(0, INT_MAX, 'opublic') });

/** author.merge: keep `Id_author`, merge `ids` (default: its new_relay) into it. */
export const AuthorMergeArgs = z.object({ Id_author: id('Id_author'), ids: relayList('ids').optional() });
export const AuthorMergeIdArgs = z.object({ Id: id('Id') });
export const AuthorMergeHistoryArgs = z.object({ p_: int(1, INT_MAX, 'p_').optional(), Id_author: id('Id_author').optional() });
export const AuthorCandidatesArgs = z.object({ Id_author: id('Id_author') });
