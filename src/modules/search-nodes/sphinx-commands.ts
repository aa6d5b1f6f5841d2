/**
 * The shell commands the console runs on a Search server and the reading of their output
 * (docs/search-nodes.md "On the Search servers"). Every path and name is single-quoted; the config
 * text itself travels on standard input, never in the command line (the audit records commands).
 */
import { maskSecretText } from '../../contracts/secrets.js';
import { SEARCH_MSG } from '../../contracts/search-nodes.js';

/** A word in single quotes for sh (a quote inside becomes '\''). */
export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Marker lines of the write command (stdout). */
export const CONF_WRITTEN = 'sphinxconf written';
export const CONF_REFUSED_EXIT = 3;

/**
 * Writes standard input to `conf` (mode 0600: it holds database passwords) through a temporary file
 * beside it, after `indextool --checkconfig` read it as a valid config (when indextool is there), and
 * makes `dataDir`. The file in place is replaced only by a complete, checked file (rename).
 * Prints `sphinxconf written <checked 0|1> <bytes>`; a config indextool refuses exits 3 with its errors.
 */
export function writeConfCommand(conf: string, dataDir: string): string {
  const c = shellQuote(conf);
  return [
    'set -e',
    `conf=${c}`,
    `mkdir -p -- ${shellQuote(dataDir)} "$(dirname -- "$conf")"`,
    'tmp="$conf.new.$$"',
    `trap 'rm -f -- "$tmp"' EXIT`,
    '(umask 077; cat > "$tmp")',
    'chmod 600 -- "$tmp"',
    'checked=0',
    'if command -v indextool >/dev/null 2>&1; then',
    '  out=$(indextool --checkconfig -c "$tmp" 2>&1) || true',
    '  case "$out" in',
    '    *"config valid"*) checked=1 ;;',
    `    *) printf '%s\\n' "$out" | grep -E 'ERROR|FATAL' >&2 || printf '%s\\n' "$out" | tail -n 3 >&2; exit ${CONF_REFUSED_EXIT} ;;`,
    '  esac',
    'fi',
    'bytes=$(wc -c < "$tmp")',
    'mv -f -- "$tmp" "$conf"',
    'trap - EXIT',
    `echo "${CONF_WRITTEN} $checked $bytes"`,
  ].join('\n');
}

/** `indexer --config <conf> --rotate <index>`, its stderr joined to stdout (indexer prints its errors on either). */
export function rotateCommand(conf: string, index: string): string {
  return `exec 2>&1\nindexer --config ${shellQuote(conf)} --rotate ${shellQuote(index)}`;
}

export interface IndexerOutcome {
  ok: boolean;
  docs: number | null;
  bytes: number | null;
  /** What failed (null when it did not). */
  error: string | null;
}

const MAX_MESSAGE = 1000;

/**
 * Reads indexer's exit code and output (EXTERNAL-APIS.md "Sphinx"): `total N docs, B bytes`; exit 1 with
 * `ERROR: index 'x': ...` (or `FATAL: ...`, or `WARNING: no such index`) is the error; exit 2 with `indices NOT rotated` means searchd
 * is not running (the index was built; searchd loads it when it starts); 127 is no indexer at all.
 */
export function parseIndexerOutput(code: number | null, output: string): IndexerOutcome {
  const total = /^total (\d+) docs, (\d+) bytes$/m.exec(output);
  const docs = total ? Number(total[1]) : null;
  const bytes = total ? Number(total[2]) : null;
  const errors = output.split(/\r?\n/).map((l) => l.trim()).filter((l) => /^(ERROR|FATAL):/.test(l)).map((l) => l.replace(/^(ERROR|FATAL):\s*/, ''));
  const mask = (s: string) => maskSecretText(s).slice(0, MAX_MESSAGE);
  const missing = /no such index '([^']*)'/.exec(output);
  if (missing) errors.push(SEARCH_MSG.notInConf(missing[1]));
  if (code === 0 && !errors.length) return { ok: true, docs, bytes, error: null };
  if (errors.length) return { ok: false, docs, bytes, error: mask(errors.join('; ')) };
  if (code === 2 && /indices NOT rotated/i.test(output)) return { ok: false, docs, bytes, error: SEARCH_MSG.searchdDown };
  if (code === 127 || /indexer: (command )?not found/.test(output)) return { ok: false, docs: null, bytes: null, error: SEARCH_MSG.indexerMissing };
  const last = output.trim().split(/\r?\n/).pop() ?? '';
  return { ok: false, docs, bytes, error: mask(`indexer exited with code ${code ?? 'none'}${last ? `: ${last}` : ''}`) };
}
