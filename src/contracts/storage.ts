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
import { text } from './fields.js';

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
} as const;

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
