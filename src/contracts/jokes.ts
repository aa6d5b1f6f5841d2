/**
 * Joke categories (001 §2 "/content/cat_jokes", §3 Joke category, §5, §7 /jokes/cat/*, §8, §9;
 * issue 19): shapes and input schemas shared by the server and the UI. Decisions: docs/content.md.
 */
import { z } from 'zod';
import { flag, id, int, INT_MAX, text } from './fields.js';

/** 001 §9: jokes categories 15 per page. */
export const JOKE_CATS_PAGE = 15;
export const JOKE_LIMIT_MAX = 100;
export const JOKE_BODY_MAX = 200_000;

/** 001 §8 'Update success'; §5 required fields (meta title, H1, name). */
export const JOKE_MSG = {
  updateOk: 'Update success',
  notFound: 'Joke category not found',
  cidMismatch: 'cid must match the address',
} as const;

/** Every field of 001 §3 Joke category. */
export interface JokeCatView { cid: number; title: string; meta_title: string; meta_h1: string; meta_description: string; cat_body: string }
/** A /content/cat_jokes row: the short fields and the body's length. */
export interface JokeCatRow { cid: number; title: string; meta_title: string; meta_h1: string; body_length: number }
export const JOKE_EDITABLE = ['title', 'meta_title', 'meta_h1', 'meta_description', 'cat_body'] as const;

export const JokeListQuery = z.object({
  page: int(1, INT_MAX, 'page').optional(),
  limit: int(1, JOKE_LIMIT_MAX, 'limit').optional(),
  getCount: flag('getCount').optional(),
});
export const JokeCidParam = z.object({ cid: id('cid') });

/** Field schemas of the editor and the import alike: name, meta title and H1 required when given. */
export const JOKE_FIELDS = {
  title: text('title', 255, { min: 1 }),
  meta_title: text('meta_title', 255, { min: 1 }),
  meta_h1: text('meta_h1', 255, { min: 1 }),
  meta_description: text('meta_description', 65_000, { multiline: true }),
  /** HTML: the server stores it through cleanHtml. */
  cat_body: text('cat_body', JOKE_BODY_MAX, { multiline: true, trim: false }),
};
/** POST /jokes/cat/update/{cid}: the fields given change (the form sends them all); `cid` in the body, if any, must be the address's. */
export const JokeUpdateArgs = z.object({
  cid: id('cid').optional(),
  title: JOKE_FIELDS.title.optional(),
  meta_title: JOKE_FIELDS.meta_title.optional(),
  meta_h1: JOKE_FIELDS.meta_h1.optional(),
  meta_description: JOKE_FIELDS.meta_description.optional(),
  cat_body: JOKE_FIELDS.cat_body.optional(),
});
