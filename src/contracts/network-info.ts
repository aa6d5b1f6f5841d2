/**
 * Network info (001 §2 "Network info", §3 Network host, Page, Category (network), §4 page form
 * placeholders, §5 "page form submit only once a host is chosen", §7 network_info.Host/Page/Cats.*,
 * GET /tpl/get_hosts; issue 20): shapes, constants and input schemas shared by the server and the UI.
 * Decisions: docs/network-info.md.
 */
import { z } from 'zod';
import { flag, hostName, id, int, INT_MAX, selectOf, text } from './fields.js';
import { MSG } from './messages.js';
import { isStorageAlias, storageCode } from './storage.js';

/** Lists answer 20 rows a page unless `limit` says otherwise (at most NET_LIMIT_MAX). */
export const NET_PAGE = 20;
/** The largest `limit` of a read: the page form loads a host's categories in one call. */
export const NET_LIMIT_MAX = 500;
/** A category read with joinCatRelay lists its newest pages, at most this many (with `pages_count`). */
export const NET_CAT_PAGES_MAX = 100;
/** A page relates to at most this many categories. */
export const NET_RELAY_MAX = 200;
/** A page body (LONGTEXT on MariaDB): at most this many characters. */
export const NET_PAGE_BODY_MAX = 1_000_000;
/** A category's body_bottom is TEXT on MariaDB: at most 65,535 bytes once sanitised (checked on the server). */
export const NET_TEXT_BYTES_MAX = 65_535;
/** Default of a page's and a category's `storage` (001 §3). */
export const NET_STORAGE_DEFAULT = 1;

export const NET_MSG = {
  insertOk: MSG.insertOk,
  updateOk: MSG.updateOk,
  hostNotFound: 'Host not found',
  pageNotFound: 'Network page not found',
  catNotFound: 'Category not found',
  /** 001 §5: the page form submits only once a host is chosen. */
  chooseHost: 'Choose a host',
  domainTaken: 'A host with this domain already exists',
  /** GET /tpl/get_hosts without an admin session or a site token. */
  tplCredential: 'Sign in as an admin or send the site token (X-Site-Token)',
} as const;

// ---------------------------------------------------------------------------------------------
// Shapes (what the reads answer; a `select` answers only the columns it names)

export interface NetHost { Id: number; name: string; domain: string; code_in_storage: string }
export interface NetRelay { Id: number; title: string }
export interface NetPage {
  Id: number; host: number; title: string; description: string; h1: string; body: string; keys_relay: string;
  storage: number; cover: string; date: string | null; date_update: string | null;
  /** joinHosh: the host's name, domain and storage code. */
  name?: string; domain?: string; code_in_storage?: string;
  /** joinCatRelay: the page's categories. */
  categoriesRelay?: NetRelay[];
}
export interface NetCat {
  Id: number; title: string; description: string; h1: string; body_bottom: string; host: number; storage: number; cover: string;
  name?: string; domain?: string; code_in_storage?: string;
  /** joinCatRelay: the category's newest pages (at most NET_CAT_PAGES_MAX) and how many it has. */
  pages?: NetRelay[];
  pages_count?: number;
}

/** The columns a `select` may name, per entity (anything else is refused with 422). */
export const NET_HOST_COLUMNS = ['Id', 'name', 'domain', 'code_in_storage'] as const;
export const NET_PAGE_COLUMNS = ['Id', 'host', 'title', 'description', 'h1', 'body', 'keys_relay', 'storage', 'cover', 'date', 'date_update'] as const;
export const NET_CAT_COLUMNS = ['Id', 'title', 'description', 'h1', 'body_bottom', 'host', 'storage', 'cover'] as const;

// ---------------------------------------------------------------------------------------------
// Input schemas

const STORAGE_CODE = storageCode('code_in_storage');
const cover = text('cover', 32).refine((v) => v === '' || isStorageAlias(v), 'cover must be a storage alias (32 characters 0-9 a-f) or empty');
export const NET_FIELDS = {
  name: text('name', 190, { min: 1 }),
  domain: hostName('domain', 190),
  /** The host's bucket in the image storage; empty on create means the domain. */
  code_in_storage: text('code_in_storage', 64).superRefine((v, ctx) => {
    if (v === '') return;
    const r = STORAGE_CODE.safeParse(v);
    if (!r.success) for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', message: issue.message });
  }),
  host: id('host'),
  title: text('title', 255, { min: 1 }),
  description: text('description', 2000, { multiline: true }),
  h1: text('h1', 255),
  /** HTML: stored through cleanHtml, storage URLs turned into `{storage:<alias>}`. */
  body: text('body', NET_PAGE_BODY_MAX, { multiline: true, trim: false }),
  body_bottom: text('body_bottom', NET_TEXT_BYTES_MAX, { multiline: true, trim: false }),
  keys_relay: text('keys_relay', 16_000, { multiline: true }),
  storage: int(0, INT_MAX, 'storage'),
  /** '' or the alias of a stored image (32 characters); the preview shows only then (001 §4). */
  cover,
  categoriesRelay: z.array(id('categoriesRelay')).max(NET_RELAY_MAX, `categoriesRelay has at most ${NET_RELAY_MAX} categories`),
};

const paging = {
  p_: int(1, INT_MAX, 'p_').optional(),
  limit: int(1, NET_LIMIT_MAX, 'limit').optional(),
};

/** network_info.Host.get: with Id one host, else the list (20 a page). */
export const NetHostGet = z.object({ select: selectOf(NET_HOST_COLUMNS).optional(), Id: id('Id').optional(), ...paging });
export const NetHostInsert = z.object({ name: NET_FIELDS.name, domain: NET_FIELDS.domain, code_in_storage: NET_FIELDS.code_in_storage.optional() });
export const NetHostUpdate = z.object({
  Id: id('Id'), name: NET_FIELDS.name.optional(), domain: NET_FIELDS.domain.optional(), code_in_storage: NET_FIELDS.code_in_storage.optional(),
});

/** network_info.Page.get: with Id one page, else the list (newest first; `host` filters). */
export const NetPageGet = z.object({
  select: selectOf(NET_PAGE_COLUMNS).optional(),
  Id: id('Id').optional(),
  host: id('host').optional(),
  joinHosh: flag('joinHosh').optional(),
  joinCatRelay: flag('joinCatRelay').optional(),
  ...paging,
});
const pageFields = {
  description: NET_FIELDS.description.optional(),
  h1: NET_FIELDS.h1.optional(),
  body: NET_FIELDS.body.optional(),
  keys_relay: NET_FIELDS.keys_relay.optional(),
  storage: NET_FIELDS.storage.optional(),
  cover: NET_FIELDS.cover.optional(),
  categoriesRelay: NET_FIELDS.categoriesRelay.optional(),
};
export const NetPageInsert = z.object({ host: NET_FIELDS.host, title: NET_FIELDS.title, ...pageFields });
export const NetPageUpdate = z.object({ Id: id('Id'), host: NET_FIELDS.host.optional(), title: NET_FIELDS.title.optional(), ...pageFields });

/** network_info.Cats.get: with Id one category, else the list (by Id; `host` filters). */
export const NetCatGet = z.object({
  select: selectOf(NET_CAT_COLUMNS).optional(),
  Id: id('Id').optional(),
  host: id('host').optional(),
  joinHosh: flag('joinHosh').optional(),
  joinCatRelay: flag('joinCatRelay').optional(),
  ...paging,
});
const catFields = {
  description: NET_FIELDS.description.optional(),
  h1: NET_FIELDS.h1.optional(),
  body_bottom: NET_FIELDS.body_bottom.optional(),
  storage: NET_FIELDS.storage.optional(),
  cover: NET_FIELDS.cover.optional(),
};
export const NetCatInsert = z.object({ host: NET_FIELDS.host, title: NET_FIELDS.title, ...catFields });
export const NetCatUpdate = z.object({ Id: id('Id'), host: NET_FIELDS.host.optional(), title: NET_FIELDS.title.optional(), ...catFields });
export const NetSetRelay = z.object({
  page: id('page'),
  cats: z.array(id('cats')).max(NET_RELAY_MAX, `cats has at most ${NET_RELAY_MAX} categories`),
});
