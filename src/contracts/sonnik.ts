/**
 * Sonnik, the dream book (001 §2 "Sonnik", §3 Sonnik category and Post, §7 sonnik.*, §8 'Commit Ok',
 * §9 page sizes; issue 19): shapes and input schemas shared by the server and the UI. Decisions:
 * docs/content.md "Sonnik".
 */
import { z } from 'zod';
import { id, int, INT_MAX, text } from './fields.js';

/** 001 §9: sonnik and posts 20 per page. */
export const SONNIK_PAGE = 20;
export const SONNIK_POSTS_PAGE = 20;
export const SONNIK_LIMIT_MAX = 100;
export const SONNIK_BODY_MAX = 200_000;

export const SONNIK_MSG = { commitOk: 'Commit Ok', notFound: 'Sonnik category not found' } as const;

export interface SonnikCatView { Id: number; letter: string; uri: string; name: string; body: string }
/** A /sonnik/cat row: Id, Name, body length (001 §2), with letter and uri beside. */
export interface SonnikCatRow { Id: number; letter: string; uri: string; name: string; body_length: number; posts: number }
export interface SonnikPostView { Id: number; Id_cat: number; views: number; title: string; title_ai: string }
export interface SonnikLetter { letter: string; cats: number }

/** A uri path segment: letters, digits, '-', '_', '.', '/' (no spaces, no scheme). */
const URI = /^[\p{L}\p{N}_./-]*$/u;
export const SONNIK_FIELDS = {
  letter: text('letter', 8),
  uri: text('uri', 190).refine((v) => URI.test(v) && !v.includes('//'), 'uri may hold letters, digits, -, _, . and / only'),
  name: text('name', 255, { min: 1 }),
  /** HTML: the server stores it through cleanHtml. */
  body: text('body', SONNIK_BODY_MAX, { multiline: true, trim: false }),
  title: text('title', 255),
  title_ai: text('title_ai', 255),
};

/** sonnik.getCat: with Id one category; otherwise the list (20 per page), by letter optionally, with the letters overview. */
export const SonnikGetCatArgs = z.object({
  Id: id('Id').optional(),
  p_: int(1, INT_MAX, 'p_').optional(),
  limit: int(1, SONNIK_LIMIT_MAX, 'limit').optional(),
  letter: SONNIK_FIELDS.letter.optional(),
});
export const SonnikGetPostsArgs = z.object({ Id_cat: id('Id_cat'), p_: int(1, INT_MAX, 'p_').optional() });
export const SonnikUpdateCatArgs = z.object({
  Id: id('Id'),
  letter: SONNIK_FIELDS.letter.optional(),
  uri: SONNIK_FIELDS.uri.optional(),
  name: SONNIK_FIELDS.name.optional(),
  body: SONNIK_FIELDS.body.optional(),
});
