/**
 * Image storage (001 §4 "Page form", "Image editor", §7 network_info.Files.*, storage upload, §8;
 * docs/architecture.md "Storage"): what the server and the UI share about stored images.
 *
 * A stored image is named by its alias: the MD5 hex (32 characters) of the bytes stored, which are the
 * console's own re-encoding of the upload. It is served at `${STORAGE_PATH}/<alias>`. Rich-text bodies
 * keep `{storage:<alias>}` placeholders, never a URL: the form expands them to URLs for display
 * (`expandStoragePlaceholders`), the server turns every storage URL back into a placeholder on save
 * (`toStoragePlaceholders`), so a stored body never holds a host name.
 */
import { z } from 'zod';
import { INT_MAX, int, text } from './fields.js';

/** The URL path the stored images are served under (outside /api: read-only, no session). */
export const STORAGE_PATH = '/storage';
/** 32 lower-case hex characters (the MD5 of the stored bytes). */
export const STORAGE_ALIAS = /^[0-9a-f]{32}$/;
export const isStorageAlias = (s: unknown): s is string => typeof s === 'string' && STORAGE_ALIAS.test(s);
/** The default upload cap in MB (STORAGE_MAX_MB). */
export const STORAGE_DEFAULT_MAX_MB = 10;

export const STORAGE_MSG = {
  /** 001 §8: an upload whose answer holds no alias. */
  noAlias: 'Not response alias: res.length === 0',
  /** Files.remove of an alias the code does not hold. */
  notFound: 'Image not found in storage',
  /** 001 §8 */
  deleteOk: 'Delete ok!',
} as const;

/** Images of a code per page in `network_info.Files.getUrlStorageByCode` (and the most a page may ask for). */
export const STORAGE_PAGE = 50;
export const STORAGE_PAGE_MAX = 200;

/** `{storage:<alias>}` */
export const storagePlaceholder = (alias: string) => `{storage:${alias}}`;
const PLACEHOLDER = /\{storage:([0-9a-f]{32})\}/g;
/**
 * A storage URL inside an attribute or text: an optional scheme and host (any host: the console's
 * own, another instance's, a site's), then `/storage/<alias>`, ending at the alias. Linear (no nested
 * quantifiers).
 */
const STORAGE_URL = /(?:https?:)?(?:\/\/[A-Za-z0-9.:[\]-]+)?\/storage\/([0-9a-f]{32})(?![0-9a-zA-Z])/g;

/** The URL of an alias under `base` ('' = this origin): `${base}/storage/<alias>`. */
export function storageUrl(alias: string, base = ''): string {
  return `${base.replace(/\/+$/, '')}${STORAGE_PATH}/${alias}`;
}

/** Every `{storage:<alias>}` in `html` becomes the alias's URL (for display in the form). */
export function expandStoragePlaceholders(html: string, base = ''): string {
  return html.replace(PLACEHOLDER, (_m, alias: string) => storageUrl(alias, base));
}

/** Every storage URL in `html` becomes `{storage:<alias>}` (what is stored). */
export function toStoragePlaceholders(html: string): string {
  return html.replace(STORAGE_URL, (_m, alias: string) => storagePlaceholder(alias));
}

/** The aliases a body refers to (placeholders and URLs), each once. */
export function storageAliasesOf(html: string): string[] {
  const out = new Set<string>();
  for (const m of toStoragePlaceholders(html).matchAll(PLACEHOLDER)) out.add(m[1]);
  return [...out];
}

/** A storage code (a site's bucket name, Network host code_in_storage): letters, digits, '.', '_', '-'. */
export const storageCode = (label: string) =>
  text(label, 64, { min: 1 }).refine((v) => /^[A-Za-z0-9._-]+$/.test(v), `${label}: letters, digits, '.', '_' and '-' only`);

/** A required alias: 32 lower-case hex characters. */
export const storageAlias = (label: string) =>
  z.string({ error: (iss) => (iss.input === undefined ? `${label} is required` : `${label} must be text`) })
    .refine((v) => STORAGE_ALIAS.test(v), `${label} must be a storage alias (32 hex characters)`);
/** An alias a form may leave empty ('' = none). */
const optionalAlias = (label: string) => z.union([z.literal('').transform(() => undefined), storageAlias(label)], {
  error: `${label} must be a storage alias (32 hex characters) or empty`,
}).optional();

/**
 * `network_info.Files.send` and POST /api/storage/upload (001 §7 "Storage upload"): `file_data` is the
 * image as base64 or a `data:image/...;base64,` URL (JPEG, PNG, WebP or GIF by its content, at most
 * STORAGE_MAX_MB); `alias` names an image of this code the upload replaces; `server` is accepted and
 * ignored (one storage backend).
 */
export const FilesSendArgs = z.object({
  server: z.union([z.string().max(190), z.number()], { error: 'server must be text or a number (it is ignored)' }).optional(),
  code_in_storage: storageCode('code_in_storage'),
  domain: text('domain', 190, { min: 1 }),
  file_name: text('file_name', 190, { min: 1 }),
  file_data: z.string({ error: (iss) => (iss.input === undefined ? 'file_data is required' : 'file_data must be text (base64 or a data URL)') })
    .min(1, 'file_data is required'),
  alias: optionalAlias('alias'),
});
export type FilesSendInput = z.input<typeof FilesSendArgs>;

/** `network_info.Files.getUrlStorageByCode {code_in_storage, p_?, limit?}`. */
export const FilesByCodeArgs = z.object({
  code_in_storage: storageCode('code_in_storage'),
  p_: int(1, INT_MAX, 'p_').optional(),
  limit: int(1, STORAGE_PAGE_MAX, 'limit').optional(),
});

/** `network_info.Files.remove {code_in_storage, alias}`. */
export const FilesRemoveArgs = z.object({
  code_in_storage: storageCode('code_in_storage'),
  alias: storageAlias('alias'),
});

/** What an upload answers, one per stored image (`network_info.Files.send` answers a list of one). */
export interface StoredImage {
  alias: string;
  /** storageUrl(alias, STORAGE_PUBLIC_URL) */
  url: string;
  /** Bytes stored (the re-encoding). */
  size: number;
  width: number;
  height: number;
  /** image/jpeg, image/png, image/webp or image/gif */
  type: string;
}

/** One image of a code, as `getUrlStorageByCode` lists it. */
export interface StorageFileView extends StoredImage {
  domain: string;
  file_name: string;
  created_at: string;
}

/** `getUrlStorageByCode`: the base URL of the code's images (`${url}/<alias>`) and its images, newest first. */
export interface StorageCodeFiles {
  code_in_storage: string;
  url: string;
  files: StorageFileView[];
  count: number;
  page: number;
  limit: number;
}

/** `Files.remove`: the reference dropped; `file_removed` when it was the image's last one. */
export interface StorageRemoved {
  alias: string;
  code_in_storage: string;
  file_removed: boolean;
  message: string;
}
