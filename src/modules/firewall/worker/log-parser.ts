/**
 * nginx access-log parser (000 §3 Access log entry), hand-written over bytes for speed (figures in
 * bench/README.md, "Firewall: access-log parser"; rules in docs/firewall.md).
 *
 * Streaming: `parseChunk(chunk, state)` takes the bytes read next (any size, lines may be cut anywhere),
 * parses every complete line, and returns a `LogBatch` plus the new state, which carries the unfinished
 * tail. `state.offset` is always at a line boundary: every line before it has been counted (parsed or
 * bad) in some batch, none after it; a reader persists it and resumes there. Nothing but one partial
 * line is ever held between calls, and a line longer than `maxLineBytes` is skipped without being held.
 *
 * Cheap output: a batch is columnar (typed arrays of offsets into the chunk, IPv4 as uint32, epoch
 * seconds, status, times); strings and objects are made only when asked (`row`, `toEntries`). A batch
 * and a state are plain transferable data, so a worker thread can parse (log-parse.worker.ts) and the
 * caller rebuild the batch (`LogBatch.from`).
 *
 * Per line, the format is recognised by what follows the user agent: nothing (combined), one quoted
 * field (main: forwarded-for), or two quoted fields and two times (console, NGINX_LOG_FORMAT_LINE).
 */
import { Buffer } from 'node:buffer';
import {
  classifyRequest,
  isBotAgent,
  LOG_BAD_SAMPLE_CHARS,
  LOG_BAD_SAMPLE_MAX,
  LOG_MAX_LINE_BYTES,
  type AccessLogEntry,
  type LogBadLine,
  type LogBadReason,
  type LogFormat,
} from '../../../contracts/access-log.js';

// ---------------------------------------------------------------------------------------------
// State and options

/** Where a stream stands: plain data (structured-clone safe), persisted by the reader as `offset`. */
export interface LogParseState {
  /** Stream offset of the first byte not yet counted: always the start of a line. */
  offset: number;
  /** Bytes after `offset` of a line not finished yet (or, while skipping, its first bytes for the sample). */
  carry: Uint8Array | null;
  /** > 0 while inside a line longer than the limit: its bytes seen so far (not held). */
  skipped: number;
}

export const initialParseState = (offset = 0): LogParseState => ({ offset, carry: null, skipped: 0 });

export interface LogParseOptions {
  /** A longer line is counted bad ('long') and skipped. */
  maxLineBytes?: number;
  /** Bad lines sampled per batch. */
  badSampleMax?: number;
}

/** Where a batch's lines came from, for the entry fields the line does not carry. */
export interface LogSource {
  /** The proxy the lines were read from (`proxy_addr`). */
  proxy_addr: string;
  /** `proxy_host` of lines without `$host` (combined, main); defaults to `proxy_addr`. */
  proxy_host?: string;
}

// ---------------------------------------------------------------------------------------------
// Columns

/** Int32 slots per line in `off` (start/end pairs, relative to the batch buffer; '-' values are empty). */
const S = 18;
const LS = 0; // line start (the client address starts here)
const LE = 1; // line end (before \r\n)
const IPE = 2; // client address end
const RQS = 3; // request (inside the quotes)
const RQE = 4;
const MTE = 5; // method end (method starts at RQS); == RQS when the request has no method
const URS = 6; // url
const URE = 7;
const RFS = 8; // referer
const RFE = 9;
const UAS = 10; // user agent
const UAE = 11;
const XFS = 12; // x-forwarded-for
const XFE = 13;
const HSS = 14; // host
const HSE = 15;
const UTS = 16; // upstream_response_time, raw
const UTE = 17;

/** `fmt` column: bits 0-1 the format, bit 2 an IPv6 client. */
const F_COMBINED = 1;
const F_MAIN = 2;
const F_CONSOLE = 3;
const F_V6 = 4;
const FORMAT_NAMES: LogFormat[] = ['combined', 'combined', 'main', 'console'];

/** A batch as plain data: typed arrays and numbers only, so it crosses a worker boundary by transfer. */
export interface LogBatchData {
  /** The chunk up to its last newline (rows from `headRows` on point into it). */
  buf: Uint8Array;
  /** Stream offset of buf[0]. */
  baseOffset: number;
  /** The line the previous chunk cut: its carry + this chunk's first line (rows before `headRows`). */
  head: Uint8Array | null;
  /** Stream offset of head[0]. */
  headBase: number;
  /** Rows parsed from `head` (0 or 1). */
  headRows: number;
  /** Lines parsed. */
  n: number;
  off: Int32Array;
  /** IPv4 client as uint32 (0 for IPv6). */
  ip4: Uint32Array;
  stime: Uint32Array;
  code: Uint16Array;
  fmt: Uint8Array;
  /** `$request_time` in seconds; NaN when absent. */
  rt: Float64Array;
  /** Sum of `$upstream_response_time` values in seconds; NaN when absent. */
  urt: Float64Array;
  /** Stream offset of the state this batch was parsed from. */
  startOffset: number;
  /** Stream offset after the batch's last counted line (the new state's offset). */
  endOffset: number;
  /** Lines that did not parse, and a sample of them. */
  bad: number;
  badSamples: LogBadLine[];
  /** Parsed lines per format. */
  formats: Record<LogFormat, number>;
}

class Columns {
  cap: number;
  n = 0;
  off: Int32Array;
  ip4: Uint32Array;
  stime: Uint32Array;
  code: Uint16Array;
  fmt: Uint8Array;
  rt: Float64Array;
  urt: Float64Array;
  constructor(cap: number) {
    this.cap = cap;
    this.off = new Int32Array(cap * S);
    this.ip4 = new Uint32Array(cap);
    this.stime = new Uint32Array(cap);
    this.code = new Uint16Array(cap);
    this.fmt = new Uint8Array(cap);
    this.rt = new Float64Array(cap);
    this.urt = new Float64Array(cap);
  }
  grow() {
    const cap = this.cap * 2;
    const g = <T extends Int32Array | Uint32Array | Uint16Array | Uint8Array | Float64Array>(a: T, size: number): T => {
      const b = new (a.constructor as new (n: number) => T)(size);
      b.set(a);
      return b;
    };
    this.off = g(this.off, cap * S);
    this.ip4 = g(this.ip4, cap);
    this.stime = g(this.stime, cap);
    this.code = g(this.code, cap);
    this.fmt = g(this.fmt, cap);
    this.rt = g(this.rt, cap);
    this.urt = g(this.urt, cap);
    this.cap = cap;
  }
}

// ---------------------------------------------------------------------------------------------
// Time

/** Days since 1970-01-01 of a civil date (proleptic Gregorian; H. Hinnant's algorithm). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Month number of the three letters at b[p..p+2] (Jan..Dec, as nginx writes them), or 0. */
function monthOf(b: Uint8Array, p: number): number {
  const k = (b[p] << 16) | (b[p + 1] << 8) | b[p + 2];
  switch (k) {
    case 0x4a616e: return 1; // Jan
    case 0x466562: return 2; // Feb
    case 0x4d6172: return 3; // Mar
    case 0x417072: return 4; // Apr
    case 0x4d6179: return 5; // May
    case 0x4a756e: return 6; // Jun
    case 0x4a756c: return 7; // Jul
    case 0x417567: return 8; // Aug
    case 0x536570: return 9; // Sep
    case 0x4f6374: return 10; // Oct
    case 0x4e6f76: return 11; // Nov
    case 0x446563: return 12; // Dec
    default: return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// The line parser

interface BadAcc {
  count: number;
  samples: LogBadLine[];
  max: number;
}

function sampleBad(acc: BadAcc, b: Uint8Array, s: number, e: number, offset: number, reason: LogBadReason) {
  acc.count++;
  if (acc.samples.length >= acc.max) return;
  const raw = Buffer.from(b.buffer, b.byteOffset + s, Math.min(e - s, LOG_BAD_SAMPLE_CHARS * 4)).toString('utf8');
  acc.samples.push({ offset, reason, text: raw.length > LOG_BAD_SAMPLE_CHARS ? raw.slice(0, LOG_BAD_SAMPLE_CHARS) : raw });
}

const REASONS: LogBadReason[] = ['address', 'time', 'request', 'status', 'quote', 'tail', 'long'];
const R_ADDRESS = 1;
const R_TIME = 2;
const R_REQUEST = 3;
const R_STATUS = 4;
const R_QUOTE = 5;
const R_TAIL = 6;
const R_LONG = 7;

/**
 * Parses every line of b[start, end) (end is just after a newline, or the end of a final line) into
 * `cols`. `base` is the stream offset of b[0].
 */
function parseLines(b: Buffer, start: number, end: number, base: number, cols: Columns, bad: BadAcc, maxLine: number, formats: number[]) {
  const len = b.length;
  // First quote at or after the last search's start (searches only move forward): lines without
  // quotes cannot make every search rescan the rest of the buffer.
  let qp = -1;
  let dayKey = -1;
  let dayEpoch = 0;
  let off = cols.off;
  let s = start;
  while (s < end) {
    let nl = b.indexOf(10, s);
    if (nl < 0 || nl >= end) nl = end;
    let e = nl;
    if (e > s && b[e - 1] === 13) e--;
    if (e === s) {
      s = nl + 1;
      continue;
    }
    let reason = 0;
    line: {
      if (e - s > maxLine) {
        reason = R_LONG;
        break line;
      }
      // --- client address: IPv4 to uint32, else an IPv6 shape
      let p = s;
      let ip4 = 0;
      let oct = 0;
      let digits = 0;
      let dots = 0;
      let other = false;
      for (; p < e; p++) {
        const c = b[p];
        if (c === 32) break;
        const d = c - 48;
        if (d >= 0 && d <= 9) {
          oct = oct * 10 + d;
          digits++;
        } else if (c === 46) {
          if (digits === 0 || digits > 3 || oct > 255) other = true;
          ip4 = ip4 * 256 + oct;
          oct = 0;
          digits = 0;
          dots++;
        } else other = true;
      }
      const ipe = p;
      if (p === e || ipe === s) {
        reason = R_ADDRESS;
        break line;
      }
      let v6 = false;
      if (other || dots !== 3 || digits === 0 || digits > 3 || oct > 255) {
        // IPv6: hex digits, colons (at least two) and dots (an embedded IPv4), at most 45 characters
        if (ipe - s > 45) {
          reason = R_ADDRESS;
          break line;
        }
        let colons = 0;
        for (let x = s; x < ipe; x++) {
          const c = b[x];
          if (c === 58) colons++;
          else if (!((c >= 48 && c <= 57) || c === 46 || ((c | 0x20) >= 97 && (c | 0x20) <= 102))) {
            reason = R_ADDRESS;
            break line;
          }
        }
        if (colons < 2) {
          reason = R_ADDRESS;
          break line;
        }
        // IPv4-mapped (::ffff:a.b.c.d) counts as the IPv4 address
        ip4 = 0;
        v6 = true;
        if (ipe - s >= 14 && b[s] === 58 && b[s + 1] === 58 && (b[s + 2] | 0x20) === 102 && (b[s + 3] | 0x20) === 102 &&
          (b[s + 4] | 0x20) === 102 && (b[s + 5] | 0x20) === 102 && b[s + 6] === 58) {
          let v = 0, o = 0, dg = 0, ds = 0, ok = true;
          for (let x = s + 7; x < ipe; x++) {
            const d = b[x] - 48;
            if (d >= 0 && d <= 9) { o = o * 10 + d; dg++; }
            else if (b[x] === 46 && dg > 0 && dg <= 3 && o <= 255) { v = v * 256 + o; o = 0; dg = 0; ds++; }
            else { ok = false; break; }
          }
          if (ok && ds === 3 && dg > 0 && dg <= 3 && o <= 255) {
            ip4 = v * 256 + o;
            v6 = false;
          }
        }
      } else ip4 = ip4 * 256 + oct;

      // --- " - $remote_user [" then the fixed-width time
      let t = ipe + 1;
      while (t < e && b[t] !== 91) t++;
      if (t + 29 >= e) {
        reason = R_TIME;
        break line;
      }
      const d1 = b[t + 1] - 48, d2 = b[t + 2] - 48;
      const y1 = b[t + 8] - 48, y2 = b[t + 9] - 48, y3 = b[t + 10] - 48, y4 = b[t + 11] - 48;
      const h1 = b[t + 13] - 48, h2 = b[t + 14] - 48, m1 = b[t + 16] - 48, m2 = b[t + 17] - 48, s1 = b[t + 19] - 48, s2 = b[t + 20] - 48;
      const z1 = b[t + 23] - 48, z2 = b[t + 24] - 48, z3 = b[t + 25] - 48, z4 = b[t + 26] - 48;
      const sign = b[t + 22];
      if (
        (d1 >>> 0) > 9 || (d2 >>> 0) > 9 || (y1 >>> 0) > 9 || (y2 >>> 0) > 9 || (y3 >>> 0) > 9 || (y4 >>> 0) > 9 ||
        (h1 >>> 0) > 9 || (h2 >>> 0) > 9 || (m1 >>> 0) > 9 || (m2 >>> 0) > 9 || (s1 >>> 0) > 9 || (s2 >>> 0) > 9 ||
        (z1 >>> 0) > 9 || (z2 >>> 0) > 9 || (z3 >>> 0) > 9 || (z4 >>> 0) > 9 ||
        b[t + 3] !== 47 || b[t + 7] !== 47 || b[t + 12] !== 58 || b[t + 15] !== 58 || b[t + 18] !== 58 || b[t + 21] !== 32 ||
        (sign !== 43 && sign !== 45) || b[t + 27] !== 93
      ) {
        reason = R_TIME;
        break line;
      }
      const month = monthOf(b, t + 4);
      const day = d1 * 10 + d2;
      const year = y1 * 1000 + y2 * 100 + y3 * 10 + y4;
      if (month === 0 || day === 0 || day > 31) {
        reason = R_TIME;
        break line;
      }
      const key = (year * 16 + month) * 32 + day;
      if (key !== dayKey) {
        dayKey = key;
        dayEpoch = daysFromCivil(year, month, day) * 86400;
      }
      const zone = ((z1 * 10 + z2) * 60 + z3 * 10 + z4) * 60;
      const stime = dayEpoch + (h1 * 10 + h2) * 3600 + (m1 * 10 + m2) * 60 + s1 * 10 + s2 - (sign === 43 ? zone : -zone);
      if (b[t + 28] !== 32 || b[t + 29] !== 34) {
        reason = R_REQUEST;
        break line;
      }

      // --- "$request": METHOD URL [PROTOCOL], else the whole request as url
      const rqs = t + 30;
      let i = rqs <= qp ? qp : (qp = b.indexOf(34, rqs)) < 0 ? (qp = len) : qp;
      while (i < e && b[i - 1] === 92) {
        let k = i - 1;
        while (k >= rqs && b[k] === 92) k--;
        if (((i - 1 - k) & 1) === 0) break;
        const f = i + 1;
        i = f <= qp ? qp : (qp = b.indexOf(34, f)) < 0 ? (qp = len) : qp;
      }
      if (i >= e) {
        reason = R_QUOTE;
        break line;
      }
      const rqe = i;
      let mte = rqs;
      while (mte < rqe && mte - rqs < 16) {
        const c = b[mte];
        if ((c >= 65 && c <= 90) || c === 95 || c === 45) mte++;
        else break;
      }
      let urs: number;
      let ure = rqe;
      if (mte > rqs && mte < rqe && b[mte] === 32) {
        urs = mte + 1;
        let y = rqe - 1;
        while (y > urs && b[y] !== 32) y--;
        if (y > urs && b[y + 1] === 72 && b[y + 2] === 84 && b[y + 3] === 84 && b[y + 4] === 80 && b[y + 5] === 47) ure = y;
      } else {
        mte = rqs;
        urs = rqs;
        if (rqe - rqs === 1 && b[rqs] === 45) ure = rqs; // "-"
      }

      // --- $status $body_bytes_sent
      const c1 = b[rqe + 2] - 48, c2 = b[rqe + 3] - 48, c3 = b[rqe + 4] - 48;
      if (b[rqe + 1] !== 32 || (c1 >>> 0) > 9 || (c2 >>> 0) > 9 || (c3 >>> 0) > 9 || b[rqe + 5] !== 32) {
        reason = R_STATUS;
        break line;
      }
      let x = rqe + 6;
      if (b[x] === 45) x++;
      else while (x < e && ((b[x] - 48) >>> 0) <= 9) x++;
      if (x === rqe + 6 || x + 2 >= e || b[x] !== 32 || b[x + 1] !== 34) {
        reason = R_STATUS;
        break line;
      }

      // --- "$http_referer"
      const rfs = x + 2;
      i = rfs <= qp ? qp : (qp = b.indexOf(34, rfs)) < 0 ? (qp = len) : qp;
      while (i < e && b[i - 1] === 92) {
        let k = i - 1;
        while (k >= rfs && b[k] === 92) k--;
        if (((i - 1 - k) & 1) === 0) break;
        const f = i + 1;
        i = f <= qp ? qp : (qp = b.indexOf(34, f)) < 0 ? (qp = len) : qp;
      }
      if (i + 2 >= e || b[i + 1] !== 32 || b[i + 2] !== 34) {
        reason = R_QUOTE;
        break line;
      }
      const rfe = i;

      // --- "$http_user_agent"; a last field cut before its quote runs to the end of the line
      const uas = rfe + 3;
      i = uas <= qp ? qp : (qp = b.indexOf(34, uas)) < 0 ? (qp = len) : qp;
      while (i < e && b[i - 1] === 92) {
        let k = i - 1;
        while (k >= uas && b[k] === 92) k--;
        if (((i - 1 - k) & 1) === 0) break;
        const f = i + 1;
        i = f <= qp ? qp : (qp = b.indexOf(34, f)) < 0 ? (qp = len) : qp;
      }
      const uae = i < e ? i : e;
      let format = F_COMBINED;
      let xfs = 0, xfe = 0, hss = 0, hse = 0, uts = 0, ute = 0;
      let rt = NaN;
      let urt = NaN;
      if (uae + 1 < e) {
        // --- "$http_x_forwarded_for" (main) [ "$host" $upstream_response_time $request_time ] (console)
        if (b[uae + 1] !== 32 || b[uae + 2] !== 34) {
          reason = R_TAIL;
          break line;
        }
        xfs = uae + 3;
        i = xfs <= qp ? qp : (qp = b.indexOf(34, xfs)) < 0 ? (qp = len) : qp;
        while (i < e && b[i - 1] === 92) {
          let k = i - 1;
          while (k >= xfs && b[k] === 92) k--;
          if (((i - 1 - k) & 1) === 0) break;
          const f = i + 1;
          i = f <= qp ? qp : (qp = b.indexOf(34, f)) < 0 ? (qp = len) : qp;
        }
        if (i >= e) {
          reason = R_QUOTE;
          break line;
        }
        xfe = i;
        if (xfe + 1 === e) format = F_MAIN;
        else {
          if (b[xfe + 1] !== 32 || b[xfe + 2] !== 34) {
            reason = R_TAIL;
            break line;
          }
          hss = xfe + 3;
          i = hss <= qp ? qp : (qp = b.indexOf(34, hss)) < 0 ? (qp = len) : qp;
          while (i < e && b[i - 1] === 92) {
            let k = i - 1;
            while (k >= hss && b[k] === 92) k--;
            if (((i - 1 - k) & 1) === 0) break;
            const f = i + 1;
            i = f <= qp ? qp : (qp = b.indexOf(34, f)) < 0 ? (qp = len) : qp;
          }
          if (i + 3 >= e || b[i + 1] !== 32) {
            reason = i >= e ? R_QUOTE : R_TAIL;
            break line;
          }
          hse = i;
          // $request_time: the last token; $upstream_response_time: everything between
          let y = e - 1;
          while (y > hse + 2 && b[y] !== 32) y--;
          if (b[y] !== 32 || y <= hse + 2) {
            reason = R_TAIL;
            break line;
          }
          rt = NaN;
          if (!(y + 2 === e && b[y + 1] === 45)) {
            let v = 0, scale = 0, seen = false;
            for (let z = y + 1; z < e; z++) {
              const c = b[z];
              const dd = c - 48;
              if (dd >= 0 && dd <= 9) { v = v * 10 + dd; scale *= 10; seen = true; }
              else if (c === 46 && scale === 0) scale = 1;
              else { seen = false; break; }
            }
            if (!seen) {
              reason = R_TAIL;
              break line;
            }
            rt = scale > 1 ? v / scale : v;
          }
          uts = hse + 2;
          ute = y;
          // values separated by ", " or " : "; '-' for an upstream that gave no answer
          let sum = 0, any = false, v = 0, scale = 0, inNum = false;
          for (let z = uts; z <= ute; z++) {
            const c = z < ute ? b[z] : 32;
            const dd = c - 48;
            if (dd >= 0 && dd <= 9) { v = v * 10 + dd; scale *= 10; inNum = true; }
            else if (c === 46 && inNum && scale === 0) scale = 1;
            else if (c === 32 || c === 44 || c === 58 || c === 45) {
              if (inNum) { sum += scale > 1 ? v / scale : v; any = true; }
              v = 0; scale = 0; inNum = false;
            } else {
              reason = R_TAIL;
              break line;
            }
          }
          urt = any ? sum : NaN;
          if (ute - uts === 1 && b[uts] === 45) ute = uts;
          format = F_CONSOLE;
          if (hse - hss === 1 && b[hss] === 45) hse = hss;
        }
        if (xfe - xfs === 1 && b[xfs] === 45) xfe = xfs;
      }

      // --- write the row
      if (cols.n === cols.cap) {
        cols.grow();
        off = cols.off;
      }
      const r = cols.n++;
      const o = r * S;
      off[o + LS] = s;
      off[o + LE] = e;
      off[o + IPE] = ipe;
      off[o + RQS] = rqs;
      off[o + RQE] = rqe;
      off[o + MTE] = mte;
      off[o + URS] = urs;
      off[o + URE] = ure;
      off[o + RFS] = rfs;
      off[o + RFE] = rfe - rfs === 1 && b[rfs] === 45 ? rfs : rfe;
      off[o + UAS] = uas;
      off[o + UAE] = uae - uas === 1 && b[uas] === 45 ? uas : uae;
      off[o + XFS] = xfs;
      off[o + XFE] = xfe;
      off[o + HSS] = hss;
      off[o + HSE] = hse;
      off[o + UTS] = uts;
      off[o + UTE] = ute;
      cols.ip4[r] = ip4;
      cols.stime[r] = stime;
      cols.code[r] = c1 * 100 + c2 * 10 + c3;
      cols.fmt[r] = format | (v6 ? F_V6 : 0);
      cols.rt[r] = rt;
      cols.urt[r] = urt;
      formats[format]++;
    }
    if (reason !== 0) sampleBad(bad, b, s, e, base + s, REASONS[reason - 1]);
    s = nl + 1;
  }
}

// ---------------------------------------------------------------------------------------------
// Chunks

const asBuffer = (u: Uint8Array): Buffer => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));
/** A copy in a fresh, unpooled ArrayBuffer (safe to transfer). */
const copyOf = (u: Uint8Array): Uint8Array => {
  const c = new Uint8Array(u.byteLength);
  c.set(u);
  return c;
};

function emptyFormats(): number[] {
  return [0, 0, 0, 0];
}

interface Parts {
  buf: Uint8Array;
  bufBase: number;
  head: Uint8Array | null;
  headBase: number;
  headRows: number;
}

function makeBatch(p: Parts, cols: Columns, startOffset: number, endOffset: number, bad: BadAcc, formats: number[]): LogBatch {
  const n = cols.n;
  return new LogBatch({
    buf: p.buf,
    baseOffset: p.bufBase,
    head: p.head,
    headBase: p.headBase,
    headRows: p.headRows,
    n,
    off: cols.off.subarray(0, n * S),
    ip4: cols.ip4.subarray(0, n),
    stime: cols.stime.subarray(0, n),
    code: cols.code.subarray(0, n),
    fmt: cols.fmt.subarray(0, n),
    rt: cols.rt.subarray(0, n),
    urt: cols.urt.subarray(0, n),
    startOffset,
    endOffset,
    bad: bad.count,
    badSamples: bad.samples,
    formats: { combined: formats[F_COMBINED], main: formats[F_MAIN], console: formats[F_CONSOLE] },
  });
}

const EMPTY = new Uint8Array(0);
const noParts = (base: number): Parts => ({ buf: EMPTY, bufBase: base, head: null, headBase: base, headRows: 0 });

/** The state after `tail` (bytes after the last newline, starting at stream offset `at`). */
function stateAfter(tail: Uint8Array, at: number, maxLine: number): LogParseState {
  if (tail.byteLength > maxLine) return { offset: at, carry: copyOf(tail.subarray(0, LOG_BAD_SAMPLE_CHARS * 4)), skipped: tail.byteLength };
  return { offset: at, carry: tail.byteLength ? copyOf(tail) : null, skipped: 0 };
}

/**
 * Parses the complete lines of `state.carry + chunk`; the unfinished tail goes into the returned state.
 * The chunk is parsed in place (only the line cut by the previous chunk is copied, with its carry):
 * the batch is a view of `chunk`, so do not reuse the chunk's memory while the batch is in use.
 */
export function parseChunk(chunk: Uint8Array, state: LogParseState | null = null, opts: LogParseOptions = {}): { batch: LogBatch; state: LogParseState } {
  return parseInto(chunk, state, opts, new Columns(Math.max(16, Math.ceil(chunk.byteLength / 160))));
}

function parseInto(chunk: Uint8Array, state: LogParseState | null, opts: LogParseOptions, cols: Columns): { batch: LogBatch; state: LogParseState } {
  const st = state ?? initialParseState();
  const maxLine = opts.maxLineBytes ?? LOG_MAX_LINE_BYTES;
  const bad: BadAcc = { count: 0, samples: [], max: opts.badSampleMax ?? LOG_BAD_SAMPLE_MAX };
  const formats = emptyFormats();
  const cb = asBuffer(chunk);
  const carry = st.carry && st.carry.byteLength ? st.carry : null;
  cols.n = 0;
  const parts = noParts(st.offset);
  let pos = st.offset; // stream offset of chunk[from]
  let from = 0;

  if (st.skipped > 0 || carry) {
    const nl = cb.indexOf(10);
    const pending = st.skipped > 0 ? st.skipped : carry!.byteLength;
    if (nl < 0) {
      // the chunk does not finish the pending line
      const total = pending + chunk.byteLength;
      const next: LogParseState =
        st.skipped > 0 || total > maxLine
          ? { offset: st.offset, carry: st.skipped > 0 ? st.carry : copyOf(carry!.subarray(0, LOG_BAD_SAMPLE_CHARS * 4)), skipped: total }
          : { offset: st.offset, carry: concat(carry!, chunk), skipped: 0 };
      return { batch: makeBatch(parts, cols, st.offset, st.offset, bad, formats), state: next };
    }
    if (st.skipped > 0 || pending + nl > maxLine) {
      const sample = st.carry ?? EMPTY;
      sampleBad(bad, sample, 0, sample.byteLength, st.offset, 'long');
    } else {
      const head = concat(carry!, chunk.subarray(0, nl + 1));
      parseLines(asBuffer(head), 0, head.byteLength, st.offset, cols, bad, maxLine, formats);
      parts.head = head;
      parts.headRows = cols.n;
    }
    pos = st.offset + pending + nl + 1;
    from = nl + 1;
  }

  const last = cb.lastIndexOf(10);
  const bufBase = pos - from;
  let tailStart = from;
  if (last >= from) {
    parseLines(cb, from, last + 1, bufBase, cols, bad, maxLine, formats);
    tailStart = last + 1;
  }
  parts.buf = chunk.subarray(0, tailStart);
  parts.bufBase = bufBase;
  const endOffset = bufBase + tailStart;
  return { batch: makeBatch(parts, cols, st.offset, endOffset, bad, formats), state: stateAfter(chunk.subarray(tailStart), endOffset, maxLine) };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const c = new Uint8Array(a.byteLength + b.byteLength);
  c.set(a, 0);
  c.set(b, a.byteLength);
  return c;
}

/**
 * End of a file that will not grow (a rotated log): the unfinished tail, if any, is its last line.
 * Returns the batch of that line and a state past the end.
 */
export function finishChunk(state: LogParseState, opts: LogParseOptions = {}): { batch: LogBatch; state: LogParseState } {
  const bad: BadAcc = { count: 0, samples: [], max: opts.badSampleMax ?? LOG_BAD_SAMPLE_MAX };
  const formats = emptyFormats();
  const cols = new Columns(1);
  const carry = state.carry ?? EMPTY;
  const parts = noParts(state.offset);
  if (state.skipped > 0) {
    sampleBad(bad, carry, 0, carry.byteLength, state.offset, 'long');
    const end = state.offset + state.skipped;
    return { batch: makeBatch(parts, cols, state.offset, end, bad, formats), state: initialParseState(end) };
  }
  const end = state.offset + carry.byteLength;
  if (carry.byteLength) parseLines(asBuffer(carry), 0, carry.byteLength, state.offset, cols, bad, opts.maxLineBytes ?? LOG_MAX_LINE_BYTES, formats);
  parts.buf = carry;
  return { batch: makeBatch(parts, cols, state.offset, end, bad, formats), state: initialParseState(end) };
}

/**
 * The same, as an object holding its state: `push` chunks, `finish` at the end of a finished file.
 * With `reuse`, one set of columns serves every push (no garbage per chunk): a batch is then valid
 * only until the next push, like a batch over a reused read buffer.
 */
export class LogStreamParser {
  state: LogParseState;
  private readonly cols: Columns | null;
  constructor(offset = 0, private readonly opts: LogParseOptions & { reuse?: boolean } = {}) {
    this.state = initialParseState(offset);
    this.cols = opts.reuse ? new Columns(4096) : null;
  }
  push(chunk: Uint8Array): LogBatch {
    const r = this.cols ? parseInto(chunk, this.state, this.opts, this.cols) : parseChunk(chunk, this.state, this.opts);
    this.state = r.state;
    return r.batch;
  }
  finish(): LogBatch {
    const r = finishChunk(this.state, this.opts);
    this.state = r.state;
    return r.batch;
  }
}

// ---------------------------------------------------------------------------------------------
// Batch: columns, with strings made on demand

const pad2 = (n: number) => (n < 10 ? '0' + n : String(n));
// log lines come in time order: the last day and second are nearly always the next line's too
let lastDay = -1;
let lastDate = '';
let lastSec = -1;
let lastTime = '';

/** UTC date (YYYY-MM-DD) of an epoch second. */
export function utcDate(stime: number): string {
  const day = Math.floor(stime / 86400);
  if (day !== lastDay) {
    lastDay = day;
    lastDate = new Date(day * 86400_000).toISOString().slice(0, 10);
  }
  return lastDate;
}

/** UTC time (HH:MM:SS) of an epoch second. */
export function utcTime(stime: number): string {
  if (stime !== lastSec) {
    lastSec = stime;
    const sec = ((stime % 86400) + 86400) % 86400;
    lastTime = `${pad2(Math.floor(sec / 3600))}:${pad2(Math.floor((sec % 3600) / 60))}:${pad2(sec % 60)}`;
  }
  return lastTime;
}

const ESCAPED = /(?:\\x[0-9A-Fa-f]{2})+|\\(["\\])/g;
/**
 * Undoes nginx's escaping (`\xHH` for '"', '\' and bytes outside printable ASCII, e.g. UTF-8) and the
 * `\"` / `\\` of `escape=json` and Apache logs.
 */
export function unescapeLogField(s: string): string {
  if (s.indexOf('\\') < 0) return s;
  return s.replace(ESCAPED, (m: string, ch: string | undefined) => {
    if (ch !== undefined) return ch;
    const bytes = new Uint8Array(m.length / 4);
    for (let k = 0; k < bytes.length; k++) bytes[k] = parseInt(m.slice(k * 4 + 2, k * 4 + 4), 16);
    return Buffer.from(bytes.buffer).toString('utf8');
  });
}

const ip4String = (v: number) => `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;

/** Bot verdicts of recent user agents (a few hundred distinct agents make most of a log). */
const botCache = new Map<string, boolean>();
function isBotCached(agent: string): boolean {
  let v = botCache.get(agent);
  if (v === undefined) {
    v = isBotAgent(agent);
    if (botCache.size >= 20_000) botCache.clear();
    botCache.set(agent, v);
  }
  return v;
}

export class LogBatch {
  readonly data: LogBatchData;
  private readonly b: Buffer;
  private readonly h: Buffer | null;

  constructor(data: LogBatchData) {
    this.data = data;
    this.b = asBuffer(data.buf);
    this.h = data.head ? asBuffer(data.head) : null;
  }

  /** The bytes row i points into. */
  private bytes(i: number): Buffer {
    return i < this.data.headRows ? this.h! : this.b;
  }

  /** Rebuilds a batch from data posted by a worker. */
  static from(data: LogBatchData): LogBatch {
    return new LogBatch(data);
  }

  /** Lines parsed. */
  get length(): number {
    return this.data.n;
  }
  get bad(): number {
    return this.data.bad;
  }
  get badSamples(): LogBadLine[] {
    return this.data.badSamples;
  }
  /** Stream offset after the last line counted: persist it, resume from it. */
  get endOffset(): number {
    return this.data.endOffset;
  }
  get startOffset(): number {
    return this.data.startOffset;
  }
  /** Columns for fast paths (index by row). */
  get stime(): Uint32Array {
    return this.data.stime;
  }
  get code(): Uint16Array {
    return this.data.code;
  }
  /** IPv4 client as uint32; 0 for an IPv6 client. */
  get ip4(): Uint32Array {
    return this.data.ip4;
  }

  /** The ArrayBuffers to list when posting `data` to another thread. */
  transferList(): ArrayBuffer[] {
    const d = this.data;
    const list = new Set<ArrayBuffer>();
    for (const a of [d.buf, d.head, d.off, d.ip4, d.stime, d.code, d.fmt, d.rt, d.urt]) if (a && a.buffer.byteLength) list.add(a.buffer as ArrayBuffer);
    return [...list];
  }

  private str(i: number, slot: number): string {
    const o = i * S + slot;
    const s = this.data.off[o];
    const e = this.data.off[o + 1];
    return s === e ? '' : this.bytes(i).toString('utf8', s, e);
  }
  private field(i: number, slot: number): string {
    const o = i * S + slot;
    const s = this.data.off[o];
    const e = this.data.off[o + 1];
    return s === e ? '' : unescapeLogField(this.bytes(i).toString('utf8', s, e));
  }

  isV6(i: number): boolean {
    return (this.data.fmt[i] & F_V6) !== 0;
  }
  format(i: number): LogFormat {
    return FORMAT_NAMES[this.data.fmt[i] & 3];
  }
  /** Stream offset where line i starts. */
  offsetOf(i: number): number {
    return (i < this.data.headRows ? this.data.headBase : this.data.baseOffset) + this.data.off[i * S + LS];
  }
  /** The line as written (without its newline). */
  line(i: number): string {
    return this.str(i, LS);
  }
  ip(i: number): string {
    if (!(this.data.fmt[i] & F_V6)) return ip4String(this.data.ip4[i]);
    const o = i * S;
    return this.bytes(i).toString('latin1', this.data.off[o + LS], this.data.off[o + IPE]).toLowerCase();
  }
  method(i: number): string {
    const o = i * S;
    const s = this.data.off[o + RQS];
    const e = this.data.off[o + MTE];
    return s === e ? '' : this.bytes(i).toString('latin1', s, e);
  }
  url(i: number): string {
    return this.field(i, URS);
  }
  agent(i: number): string {
    return this.field(i, UAS);
  }
  /** `$host`, '' when the line carries none. */
  host(i: number): string {
    return this.field(i, HSS);
  }
  /** `$request_time` in seconds, or null. */
  requestTime(i: number): number | null {
    const v = this.data.rt[i];
    return v === v ? v : null;
  }
  /** Total of the `$upstream_response_time` values in seconds, or null. */
  upstreamSeconds(i: number): number | null {
    const v = this.data.urt[i];
    return v === v ? v : null;
  }
  tag(i: number): ReturnType<typeof classifyRequest> {
    return classifyRequest(this.url(i), '', isBotCached(this.agent(i)));
  }

  /** Line i as an access log entry (000 §3). */
  row(i: number, source: LogSource): AccessLogEntry {
    const d = this.data;
    const off = d.off;
    const o = i * S;
    const ls = off[o + LS];
    const le = off[o + LE];
    // one decode per line; fields are substrings of it when the line is ASCII (byte offsets = indexes)
    const line = this.bytes(i).toString('utf8', ls, le);
    const ascii = line.length === le - ls;
    const sub = (slot: number, raw = false): string => {
      const s = off[o + slot];
      const e = off[o + slot + 1];
      if (s === e) return '';
      if (!ascii) return raw ? this.str(i, slot) : this.field(i, slot);
      const v = line.substring(s - ls, e - ls);
      return raw ? v : unescapeLogField(v);
    };
    const st = d.stime[i];
    const url = sub(URS);
    const agent = sub(UAS);
    const host = sub(HSS);
    const rt = d.rt[i];
    return {
      ip: d.fmt[i] & F_V6 ? sub(LS, true).slice(0, off[o + IPE] - ls).toLowerCase() : ip4String(d.ip4[i]),
      forward: sub(XFS),
      date: utcDate(st),
      time: utcTime(st),
      stime: st,
      upstream_response_time: sub(UTS, true),
      request_time: rt === rt ? rt : null,
      method: off[o + MTE] === off[o + RQS] ? '' : line.substring(off[o + RQS] - ls, off[o + MTE] - ls),
      url,
      code: d.code[i],
      ref: sub(RFS),
      agent,
      proxy_host: host || (source.proxy_host ?? source.proxy_addr),
      proxy_addr: source.proxy_addr,
      tag: classifyRequest(url, agent, isBotCached(agent)),
    };
  }

  /** Rows [from, to) as entries (materialise in slices to keep each step short). */
  toEntries(source: LogSource, from = 0, to = this.data.n): AccessLogEntry[] {
    const out: AccessLogEntry[] = new Array(Math.max(0, to - from));
    for (let i = from; i < to; i++) out[i - from] = this.row(i, source);
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// Per-IP counting without strings

/**
 * Hits per client address over any number of batches: IPv4 in an open-addressing table of uint32
 * keys (no string per line), IPv6 in a Map.
 */
export class IpCounter {
  private keys = new Uint32Array(1024);
  private counts = new Uint32Array(1024);
  private used = 0;
  private zero = 0;
  private readonly v6 = new Map<string, number>();

  add(batch: LogBatch, from = 0, to = batch.length): void {
    const ip4 = batch.data.ip4;
    const fmt = batch.data.fmt;
    // runs of one address (a page and its assets) cost one table update
    let last = 0;
    let run = 0;
    for (let i = from; i < to; i++) {
      if (fmt[i] & F_V6) {
        const ip = batch.ip(i);
        this.v6.set(ip, (this.v6.get(ip) ?? 0) + 1);
        continue;
      }
      const ip = ip4[i];
      if (ip === last && run > 0) run++;
      else {
        if (run > 0) this.addIp4(last, run);
        last = ip;
        run = 1;
      }
    }
    if (run > 0) this.addIp4(last, run);
  }

  addIp4(ip: number, n: number): void {
    if (ip === 0) {
      this.zero += n;
      return;
    }
    let keys = this.keys;
    let mask = keys.length - 1;
    let h = (Math.imul(ip, 0x9e3779b1) >>> 0) & mask;
    while (true) {
      const k = keys[h];
      if (k === ip) {
        this.counts[h] += n;
        return;
      }
      if (k === 0) break;
      h = (h + 1) & mask;
    }
    keys[h] = ip;
    this.counts[h] = n;
    if (++this.used * 2 > keys.length) {
      this.rehash(keys.length * 2);
      keys = this.keys;
      mask = keys.length - 1;
    }
  }

  private rehash(size: number) {
    const ok = this.keys;
    const oc = this.counts;
    this.keys = new Uint32Array(size);
    this.counts = new Uint32Array(size);
    const mask = size - 1;
    for (let j = 0; j < ok.length; j++) {
      const k = ok[j];
      if (k === 0) continue;
      let h = (Math.imul(k, 0x9e3779b1) >>> 0) & mask;
      while (this.keys[h] !== 0) h = (h + 1) & mask;
      this.keys[h] = k;
      this.counts[h] = oc[j];
    }
  }

  /** Distinct addresses. */
  get size(): number {
    return this.used + (this.zero ? 1 : 0) + this.v6.size;
  }

  /** Hits of one address (dotted IPv4 or IPv6 as logged, lower case). */
  count(ip: string): number {
    const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
    if (!m) return this.v6.get(ip.toLowerCase()) ?? 0;
    const v = ((+m[1] << 24) | (+m[2] << 16) | (+m[3] << 8) | +m[4]) >>> 0;
    if (v === 0) return this.zero;
    const mask = this.keys.length - 1;
    let h = (Math.imul(v, 0x9e3779b1) >>> 0) & mask;
    while (this.keys[h] !== 0) {
      if (this.keys[h] === v) return this.counts[h];
      h = (h + 1) & mask;
    }
    return 0;
  }

  /** Every address with its hits, most hits first (then by address text). */
  entries(limit = Infinity): { ip: string; count: number }[] {
    // with a small limit, only addresses at or above the limit-th count become objects
    let min = 0;
    if (limit < this.used) {
      const cs = new Uint32Array(this.used);
      let k = 0;
      for (let j = 0; j < this.keys.length; j++) if (this.keys[j] !== 0) cs[k++] = this.counts[j];
      cs.sort();
      min = cs[cs.length - Math.max(1, limit)];
    }
    const out: { ip: string; count: number }[] = [];
    for (let j = 0; j < this.keys.length; j++) if (this.keys[j] !== 0 && this.counts[j] >= min) out.push({ ip: ip4String(this.keys[j]), count: this.counts[j] });
    if (this.zero) out.push({ ip: '0.0.0.0', count: this.zero });
    for (const [ip, count] of this.v6) out.push({ ip, count });
    out.sort((a, b) => b.count - a.count || (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
    return limit < out.length ? out.slice(0, limit) : out;
  }
}
