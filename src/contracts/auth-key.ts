/**
 * The combined key of 000 §5, in a module of its own without zod: the sign-in page imports it, and the
 * schemas of auth.ts (with zod, ~25 KB compressed) are not part of that page's first load.
 */

/** Encodes login and password into the combined key of 000 §5 (base64 of login:password, UTF-8). */
export function encodeAuthKey(login: string, password: string): string {
  const bytes = new TextEncoder().encode(`${login}:${password}`);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}
