/**
 * Secrets of a cron task's cmd (docs/cron.md): the user part of a `curl=` URL
 * (`curl=https://user:pass@host/hook`), secret query parameters (`?token=…`) and secret `name=value`
 * arguments (`arg=password=…`), by the one list of secret names (src/contracts/secrets.ts). They are
 * kept out of the stored cmd: it is stored and answered with each masked (`https://user:***@host/hook`,
 * `https://***@host/hook` for a user part alone, `token=***`, `password=***`), the real values are
 * sealed together in `cron_tasks.cmd_secret` (SecretBox, JSON), and the runner gets the cmd with them
 * filled in (the user part goes as `Authorization: Basic`). Saving the masked form back keeps the
 * stored values (for the same scheme, host and port, or the same action, only); typing new ones
 * replaces them; a cmd without them drops them. The splitting itself is in src/contracts/cron.ts
 * (`splitCronSecrets`, `fillCronSecrets`; the edit form uses it too).
 */
import {
  actionName, CronCmdError, fillCronSecrets, keepUserName, secretAt, splitCronSecrets, splitUrlUserinfo, type CronCmd, type CronHttpCmd, type CronSecrets,
} from '../../contracts/cron.js';
import type { SecretBox } from '../../core/crypto/secret-box.js';

export { splitUrlUserinfo as splitUserinfo };
export { keepUserName as keptUserinfo };

/** `scheme://host:port` of a URL (with or without a user part); null when it is not a URL. */
export function originOf(url: string): string | null {
  const u = splitUrlUserinfo(url);
  try {
    return new URL((u ? u.bare : url).trim()).origin;
  } catch {
    return null;
  }
}

/** Where a task's secrets go: the origin of its URL, or its action. */
const destinationOf = (c: CronCmd) => (c.kind === 'http' ? originOf(c.url) : `action ${actionName(c)}`);

/** `cmd_secret` of a task: its secrets sealed as JSON; null when it has none. */
export function sealSecrets(box: SecretBox, s: CronSecrets): string | null {
  const has = s.userinfo !== undefined || Object.keys(s.query ?? {}).length > 0 || Object.keys(s.args ?? {}).length > 0;
  return has ? box.seal(JSON.stringify({ v: 2, ...s })) : null;
}

/** The secrets sealed in `cmd_secret` (a user part alone, sealed before query and argument secrets were, is read as one). Throws when it cannot be opened. */
export function openSecrets(box: SecretBox, sealed: string | null): CronSecrets {
  if (!sealed) return {};
  const text = box.open(sealed);
  try {
    const o = JSON.parse(text) as CronSecrets & { v?: number };
    if (o && typeof o === 'object' && o.v === 2) {
      const { v: _, ...s } = o;
      return s;
    }
  } catch { /* a user part sealed alone */ }
  return { userinfo: text };
}

/**
 * What a save stores for a cmd as given: the masked cmd and its secrets, and the cmd with them (what
 * runs, what the action's input is checked with). A value given as `***` keeps the stored one, from
 * `old` (the task's stored cmd and its secrets, opened only when a `***` needs them; null for a new task): refused when none is
 * stored or when the task's destination changed ("type them again": stored secrets are only sent
 * where they were meant to go). Throws CronCmdError with the message for the user.
 */
export function resolveSecrets(given: CronCmd, old: { cmd: CronCmd; secrets: () => CronSecrets } | null): { masked: CronCmd; secrets: CronSecrets; real: CronCmd } {
  const split = splitCronSecrets(given);
  const secrets: CronSecrets = split.secrets;
  let opened: CronSecrets | undefined;
  for (const ref of split.kept) {
    const stored = old ? secretAt((opened ??= old.secrets()), ref) : undefined;
    const what = ref.where === 'userinfo' ? 'the URL shows masked credentials (***)' : `the ${ref.where === 'query' ? 'query parameter' : 'argument'} '${ref.name}' shows ***`;
    if (stored === undefined) throw new CronCmdError(`${what} but this task has none stored: type ${ref.where === 'userinfo' ? 'them' : 'it'}`);
    const was = destinationOf(old!.cmd);
    if (was !== destinationOf(given)) throw new CronCmdError(`the stored credentials are only sent to ${was}: type them again for the new address`);
    if (ref.where === 'userinfo') secrets.userinfo = keepUserName(splitUrlUserinfo((given as CronHttpCmd).url)!.userinfo, stored);
    else {
      const list = ((secrets[ref.where] ??= {})[ref.name] ??= []);
      while (list.length < ref.index) list.push(null);
      list[ref.index] = stored;
    }
  }
  return { masked: split.masked, secrets, real: fillCronSecrets(split.masked, secrets) };
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
