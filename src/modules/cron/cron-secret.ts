/**
 * Credentials inside a `curl=` task's URL (`curl=https://user:pass@host/hook`): kept out of the
 * stored cmd. The cmd is stored and answered with them masked (`https://user:***@host/hook`; a URL
 * with a user part only, often a token, shows `https://***@host/hook`), the real user part is sealed
 * in `cron_tasks.cmd_secret` (SecretBox), and the runner sends it as `Authorization: Basic`.
 * Saving the masked form back keeps the stored credentials (for the same scheme, host and port
 * only); typing new ones replaces them; a URL without them clears them. The splitting itself is in
 * src/contracts/cron.ts (the edit form uses it too).
 */
import { splitUrlUserinfo } from '../../contracts/cron.js';

export { splitUrlUserinfo as splitUserinfo };

/** `scheme://host:port` of a URL (with or without a user part); null when it is not a URL. */
export function originOf(url: string): string | null {
  const u = splitUrlUserinfo(url);
  try {
    return new URL((u ? u.bare : url).trim()).origin;
  } catch {
    return null;
  }
}

/**
 * The user part to store when a save brings `given` (the masked user part of the saved URL) and
 * `stored` is what is sealed now: the stored password is kept, under the user name given (a changed
 * user name is taken); a stored user part without a password is kept as it is.
 */
export function keptUserinfo(given: string, stored: string): string {
  const g = given.indexOf(':');
  const s = stored.indexOf(':');
  if (g >= 0 && s >= 0) return `${given.slice(0, g)}:${stored.slice(s + 1)}`;
  return stored;
}

/** `Authorization: Basic` of a user part as written in a URL (percent-decoded, as curl does). */
export function basicAuthorization(userinfo: string): string {
  const decode = (s: string) => {
    try { return decodeURIComponent(s); } catch { return s; }
  };
  const colon = userinfo.indexOf(':');
  const user = decode(colon >= 0 ? userinfo.slice(0, colon) : userinfo);
  const pass = colon >= 0 ? decode(userinfo.slice(colon + 1)) : '';
  return 'Basic ' + Buffer.from(`${user}:${pass}`, 'utf8').toString('base64');
}
