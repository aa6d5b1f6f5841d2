/**
 * Bad input, table-driven (issue 7 "Strict input"): as an admin, every registered RPC method
 * (RpcRegistry.list()) and every REST route (listRoutes) gets the wrong shapes of an id or a number —
 * `true`, `[5]`, `"0x17"`, `"1e1"`, `null`, `{}` (and more), and non-objects as the whole argument.
 * Never a 5xx, never a stack trace, a 422 naming the field for each wrong type on a numeric field, and
 * no row of any table changed. Methods and routes are discovered at run time, and the numeric fields
 * are read from each method's input schema (numericFieldsOf walks the fields made by
 * src/contracts/fields.ts), so the areas to come are covered as they register.
 *
 * Switches (issue 18): every switch of every method is a `flag()` field, and takes 0, 1, '0', '1',
 * true and false alike; a field refused by name answers 422 (400 is only for a body that is not JSON).
 *
 * Then the examples of the issue, one by one.
 */
import { request } from 'node:http';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Envelope } from '../../src/contracts/envelope.js';
import { adHocSwitchesOf, numericFieldsOf, type NumericField } from '../../src/contracts/fields.js';
import { listRoutes } from '../../src/core/http/route-table.js';
import { RpcRegistry, type RpcMethod } from '../../src/core/rpc/rpc.registry.js';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: string;
const db = () => (process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite');
/** Rows made per table, so that every id the bad shapes could be read as (1, 5, 10, 23) exists. */
const ROWS = 25;

/** Wrong shapes for a numeric field, and the kinds of field each one is wrong for. */
const NUMERIC_SHAPES: Array<{ v: unknown; notFor?: Array<NumericField['kind'] | 'list'> }> = [
  { v: true, notFor: ['flag'] },
  { v: [5], notFor: ['list'] },
  { v: '0x17' },
  { v: '1e1' },
  { v: null },
  { v: {} },
  { v: [], notFor: ['idList'] },
  { v: 'abc' },
  { v: 1.5 },
  { v: ' 5', notFor: ['idList'] },
];
/**
 * Wrong shapes for a field of any type, sent under the names other methods use for numbers: a string
 * ('0x17') may be a fine value of a text field of the same name, these never are.
 */
const ANY_FIELD_SHAPES: unknown[] = [true, [5], null, {}];
/** Every form a switch (`flag`) takes, the "on" forms last (a real call leaves the switch on). */
const FLAG_VALUES: unknown[] = [0, '0', false, 1, '1', true];
/** Non-objects given as the whole argument. */
const TOP_LEVEL_SHAPES: unknown[] = [true, [5], '0x17', '1e1', 7.5, 'abc', ''];
/**
 * Documented bare forms, not sent as bad shapes: `setServiceStatus(true)`, `getAppCron('')` (no Id: the
 * list, like GET /cfg/app_cron?Id=), `removeConfigs([Id])`.
 */
const TOP_LEVEL_VALID: Record<string, unknown[]> = { 'cron.setServiceStatus': [true], 'cfg.getAppCron': [''], 'cfg.removeConfigs': [[5]] };
/** Tables that change on every call by design: the audit log records refused writes too; sessions are touched. */
const VOLATILE_TABLES = new Set(['audit_log', 'sessions']);
/**
 * Rows that change with time, not with input: bookkeeping written by scheduled jobs and runs (the
 * firewall worker's last run, the traffic roll-up's watermark, advanced every minute on every instance).
 */
const VOLATILE_ROWS: Record<string, (row: Record<string, unknown>) => boolean> = {
  fw_settings: (r) => r.name === 'worker_last_time' || r.name === 'traffic_rollup_id',
};
/** Columns a scheduled job writes whenever it runs (a daily job may run mid-walk: session-cleanup at 00:00). */
const VOLATILE_COLUMNS: Record<string, string[]> = { workers: ['last_run', 'last_error'] };
/** Answer keys that change with time, not with the input (compared answers drop them). */
const VOLATILE_KEYS = new Set(['time', 'next_run', 'ts', 'ts_check', 'atime', 'last_seen', 'last_start', 'last_end', 'started', 'duration_ms', 'last_duration_ms', 'last_login', 'db_ms', 'uptime_s']);
/** REST routes not probed, with the reason. */
const SKIP_ROUTES: Record<string, string> = {
  'POST /api/user/logout': 'ends the probing session (covered in platform.e2e.ts)',
};

const STACK = /\n\s+at\s|\bat .+\.(ts|js):\d+|node_modules\/|\.ts:\d+:\d+/;
const stable = (x: unknown): unknown =>
  Array.isArray(x) ? x.map(stable)
  : x && typeof x === 'object' ? Object.fromEntries(Object.entries(x).filter(([k]) => !VOLATILE_KEYS.has(k)).map(([k, v]) => [k, stable(v)]))
  : x;
const same = (a: unknown, b: unknown) => JSON.stringify(stable(a)) === JSON.stringify(stable(b));
const codeOf = (e: Envelope) => (e.status === 'ok' ? 200 : (e.code ?? 0));
/** The answer's per-field messages name `name` (or a path inside it: `list.0`). */
const names = (fields: Record<string, string> | undefined, name: string) => Object.keys(fields ?? {}).some((k) => k === name || k.startsWith(`${name}.`));
const show = (v: unknown) => (v === undefined ? 'undefined' : JSON.stringify(v));

/** The top-level keys of an object input schema (through pipes, unions, optionals, defaults). */
function keysOf(schema: unknown, depth = 0): string[] {
  const def = (schema as { _zod?: { def?: any } })?._zod?.def;
  if (!def || depth > 10) return [];
  switch (def.type) {
    case 'object': return Object.keys(def.shape);
    case 'pipe': return [...keysOf(def.in, depth + 1), ...keysOf(def.out, depth + 1)];
    case 'union': return (def.options as unknown[]).flatMap((o) => keysOf(o, depth + 1));
    case 'optional': case 'nullable': case 'default': case 'prefault': case 'readonly': case 'catch': return keysOf(def.innerType, depth + 1);
    default: return [];
  }
}

/** Puts `value` at `path` inside a fresh object ({list: [{Id: value}]} for ['list', 0, 'Id']). */
function argsWith(path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  return typeof head === 'number' ? [argsWith(rest, value)] : { [head]: argsWith(rest, value) };
}

/** Every row of every table (but the volatile ones), in a stable order: what "no row changed" compares. */
async function snapshot(): Promise<Record<string, string[]>> {
  const ds = t.app.get<DataSource>(getDataSourceToken());
  const out: Record<string, string[]> = {};
  for (const meta of ds.entityMetadatas) {
    if (VOLATILE_TABLES.has(meta.tableName)) continue;
    const q = meta.tableName.replace(/[^A-Za-z0-9_]/g, '');
    const rows = (await ds.query(`SELECT * FROM ${ds.options.type === 'mariadb' ? `\`${q}\`` : `"${q}"`}`)) as unknown[];
    const skip = VOLATILE_ROWS[meta.tableName];
    const drop = VOLATILE_COLUMNS[meta.tableName] ?? [];
    out[meta.tableName] = rows
      .filter((r) => !skip?.(r as Record<string, unknown>))
      .map((r) => JSON.stringify(Object.fromEntries(Object.entries(r as object).filter(([k]) => !drop.includes(k)))))
      .sort();
  }
  return out;
}
function diff(before: Record<string, string[]>, after: Record<string, string[]>): string[] {
  const out: string[] = [];
  for (const table of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = new Set(before[table] ?? []);
    const b = new Set(after[table] ?? []);
    for (const r of a) if (!b.has(r)) out.push(`${table}: row gone or changed: ${r.slice(0, 300)}`);
    for (const r of b) if (!a.has(r)) out.push(`${table}: row added or changed: ${r.slice(0, 300)}`);
  }
  return out;
}

/**
 * One request on a connection of its own (no keep-alive: on a loaded machine a pooled socket the
 * server has just closed answers ECONNRESET); the path is sent as written (`?Id=%20`, `/%00`).
 */
function http(method: string, path: string, body?: string): Promise<{ status: number; text: string; json: any }> {
  return new Promise((resolve, reject) => {
    const u = new URL(t.url);
    const req = request(
      {
        host: u.hostname, port: u.port, path, method, agent: false,
        headers: { 'content-type': 'application/json', User: admin, ...(body !== undefined ? { 'content-length': Buffer.byteLength(body) } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let json: unknown = null;
          try { json = JSON.parse(text); } catch { /* checked by the caller */ }
          resolve({ status: res.statusCode ?? 0, text, json });
        });
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
const rawRest = http;

/** One POST /api with many methods (at most 50 per call), answered in order. */
async function batch(calls: Array<[string, unknown]>): Promise<Array<{ env: Envelope; text: string; http: number }>> {
  const out: Array<{ env: Envelope; text: string; http: number }> = [];
  for (let i = 0; i < calls.length; i += 50) {
    const part = calls.slice(i, i + 50);
    const res = await http('POST', '/api', JSON.stringify({ methods: part.map((c) => c[0]), args: part.map((c) => c[1] ?? null), host: 0 }));
    const envs = res.json as Envelope[] | null;
    if (!Array.isArray(envs) || envs.length !== part.length) throw new Error(`POST /api answered ${res.status}: ${res.text.slice(0, 300)}`);
    envs.forEach((env) => out.push({ env, text: JSON.stringify(env), http: res.status }));
  }
  return out;
}

/**
 * Write methods that run with no argument at all (cron.reload, srv.sslCheckAll, a worker's run-now):
 * probing them is a real run, which may write. They are probed in a test of their own, their answers
 * compared, and the snapshot is taken again after it.
 */
const runsWithoutArgs = (m: RpcMethod) => !!m.write && (!m.input || m.input.safeParse({}).success);

/**
 * Control (`{}`) then the probes by name: each name must be refused by name (422) or answered as
 * without it. Per method and wrong shape, every name goes in one call first: an answer as the control
 * clears them all; a 4xx naming some settles those and the rest go again; anything else (a 5xx, a
 * stack, an answer that acted on something) is narrowed down to one call per name, so every problem is
 * reported for its own name exactly as one call per name would, at a fraction of the calls.
 */
async function probeByName(methods: RpcMethod[], problems: string[]) {
  type Job = { m: RpcMethod; shape: unknown; names: string[]; single: boolean };
  let jobs: Job[] = [];
  for (const m of methods) {
    const known = new Set(m.input ? numericFieldsOf(m.input).map((f) => String(f.path[0])) : []);
    const names = probeNames.filter((n) => !known.has(n));
    for (const shape of ANY_FIELD_SHAPES) if (names.length) jobs.push({ m, shape, names, single: false });
  }
  while (jobs.length) {
    // each probe right after a control of its own (an answer such as the audit list moves with the calls before it)
    const answers = await batch(jobs.flatMap((j) => [[j.m.name, {}], [j.m.name, Object.fromEntries(j.names.map((n) => [n, j.shape]))]] as Array<[string, unknown]>));
    const next: Job[] = [];
    jobs.forEach((job, i) => {
      const [c, a] = [answers[2 * i] as { env: any; text: string }, answers[2 * i + 1]];
      const { m, shape, names: left, single } = job;
      if (STACK.test(c.text)) problems.push(`${m.name} {}: stack trace in ${c.text.slice(0, 200)}`);
      if (codeOf(c.env) >= 500) problems.push(`${m.name} {}: ${c.text.slice(0, 200)}`);
      const where = (n: string) => `${m.name} {${n}: ${show(shape)}}`;
      const code = codeOf(a.env);
      const bad = STACK.test(a.text) || code >= 500;
      const refused = a.env.status !== 'ok' && code >= 400 && code < 500 ? left.filter((n) => names((a.env as { fields?: Record<string, string> }).fields, n)) : [];
      if (!bad && refused.length) {
        if (code !== 422) refused.forEach((n) => problems.push(`${where(n)}: refused the field with ${code} (want 422): ${a.text.slice(0, 200)}`));
        const rest = left.filter((n) => !refused.includes(n));
        if (rest.length) next.push({ ...job, names: rest });
        return;
      }
      const asWithout = codeOf(c.env) === code && (a.env.status === 'ok' ? same((a.env as any).result, c.env.result) : a.env.message === c.env.message);
      if (!bad && asWithout) return;
      if (!single && left.length > 1) { for (const n of left) next.push({ ...job, names: [n], single: true }); return; }
      const n = left[0];
      if (STACK.test(a.text)) problems.push(`${where(n)}: stack trace in ${a.text.slice(0, 200)}`);
      if (code >= 500) problems.push(`${where(n)}: ${a.text.slice(0, 200)}`);
      if (!asWithout) problems.push(`${where(n)}: acted on it: ${a.text.slice(0, 200)} (without it: ${JSON.stringify(c.env).slice(0, 200)})`);
    });
    jobs = next;
  }
}

let before: Record<string, string[]>;
/** Names of the numeric fields of every method's schema (plus the usual ones): what REST routes are probed with. */
let probeNames: string[];
/** Probe names that are a text field somewhere (a string such as '0x17' may be a fine value there). */
const textNames = new Set<string>();
/** Probe names where some method accepts a list (`?type=5&type=5` may be fine there). */
const listNames = new Set<string>();

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  await t.session(10);
  await t.session(100);
  // Rows 1..25 in each table an id of the current areas points at.
  for (let i = 1; i <= ROWS; i++) {
    await t.ok(admin, 'srv.save_server', { name: `srv-${i}`, type: i % 5 === 0 ? 0 : 8, ip: `10.0.0.${i}`, cod: i % 5 === 0 ? 0 : 5, balance_web: 1 });
    await t.ok(admin, 'srv.sslUpdateHost', { host: `h${i}.example.com`, not_check: 1 });
    await t.ok(admin, 'cfg.saveAppCron', { name: `task-${i}`, cmd: 'curl=http://127.0.0.1:9/never', suspended: 1 });
  }
  await t.ok(admin, 'cfg.insertConfigsBatch', Array.from({ length: ROWS }, (_, i) => ({ type: i % 2 ? 'note' : 'domain', value: `d${i + 1}.example.com` })));
  const rpcNames = new Set<string>();
  for (const m of t.app.get(RpcRegistry).list()) {
    if (!m.input) continue;
    const numeric = numericFieldsOf(m.input);
    for (const f of numeric) if (typeof f.path[0] === 'string') rpcNames.add(f.path[0]);
    for (const f of numeric) if (f.listOk && f.path.length === 1) listNames.add(String(f.path[0]));
    for (const k of keysOf(m.input)) if (!numeric.some((f) => f.path[0] === k)) textNames.add(k);
  }
  probeNames = [...new Set([...rpcNames, 'Id', 'id', 'uid', 'type', 'status', 'role', 'page', 'limit', 'p_', 'clone_by', 'cod'])].sort();
  before = await snapshot();
}, 180_000);
afterAll(async () => { await t?.close(); });

describe(`every RPC method and REST route refuses bad shapes (${db()})`, () => {
  test('the fixture has rows 1..25 where ids point', () => {
    for (const table of ['servers', 'ssl_hosts', 'cron_tasks', 'cluster_configs']) expect(before[table]?.length).toBe(ROWS);
    expect(probeNames).toEqual(expect.arrayContaining(['Id', 'type', 'status', 'role', 'uid', 'page', 'limit']));
  });

  test('RPC: a 422 naming the field for each wrong shape of a numeric field of the schema', async () => {
    const methods = t.app.get(RpcRegistry).list();
    expect(methods.length).toBeGreaterThan(20);
    const calls: Array<[string, unknown]> = [];
    const expects: Array<{ m: RpcMethod; key: string; shape: unknown }> = [];
    let withFields = 0;
    for (const m of methods) {
      if (!m.input) continue;
      const fields = numericFieldsOf(m.input);
      if (fields.length) withFields++;
      for (const f of fields) {
        for (const s of NUMERIC_SHAPES) {
          if (s.notFor?.includes(f.kind) || (f.listOk && s.notFor?.includes('list'))) continue;
          calls.push([m.name, argsWith(f.path, s.v)]);
          expects.push({ m, key: f.path.join('.'), shape: s.v });
        }
      }
    }
    // Every area of today has numeric fields made by the shared helper.
    expect(withFields).toBeGreaterThanOrEqual(15);
    const answers = await batch(calls);
    const problems: string[] = [];
    answers.forEach((a, i) => {
      const { m, key, shape } = expects[i];
      const where = `${m.name} ${key}=${show(shape)}`;
      if (STACK.test(a.text)) problems.push(`${where}: stack trace in ${a.text.slice(0, 200)}`);
      if (a.env.status === 'ok' || a.env.code !== 422) problems.push(`${where}: answered ${a.text.slice(0, 200)} (want 422)`);
      else if (!a.env.fields?.[key] || !a.env.message.includes(`${key}: `)) problems.push(`${where}: 422 does not name ${key}: ${a.text.slice(0, 200)}`);
    });
    expect(problems).toEqual([]);
    expect(diff(before, await snapshot())).toEqual([]);
  }, 300_000);

  test('RPC: other probed names are refused by name or ignored (answer as without them); no 5xx, no stack', async () => {
    const methods = t.app.get(RpcRegistry).list().filter((m) => !runsWithoutArgs(m));
    const problems: string[] = [];
    await probeByName(methods, problems);
    expect(problems).toEqual([]);
    expect(diff(before, await snapshot())).toEqual([]);
  }, 300_000);

  test('RPC: every switch is a flag() field and takes 0, 1, "0", "1", true and false (never refused for that field)', async () => {
    const methods = t.app.get(RpcRegistry).list();
    const problems: string[] = [];
    for (const m of methods) for (const path of m.input ? adHocSwitchesOf(m.input) : []) problems.push(`${m.name} ${path}: a switch of its own (z.boolean() or int(0, 1)): use flag()`);
    const calls: Array<[string, unknown]> = [];
    const expects: Array<{ m: RpcMethod; key: string; v: unknown }> = [];
    for (const m of methods) {
      if (!m.input) continue;
      const fields = numericFieldsOf(m.input);
      // Another top-level numeric field in a wrong shape keeps a write from running: the answer is then a 422 naming that field, not the switch.
      const poison = fields.find((f) => f.kind !== 'flag' && f.path.length === 1);
      for (const f of fields.filter((x) => x.kind === 'flag')) {
        for (const v of FLAG_VALUES) {
          const args = argsWith(f.path, v);
          calls.push([m.name, poison && poison.path[0] !== f.path[0] && args && typeof args === 'object' && !Array.isArray(args) ? { ...args, [poison.path[0]]: 'abc' } : args]);
          expects.push({ m, key: f.path.join('.'), v });
        }
      }
    }
    const flagged = new Set(expects.map((e) => e.m.name));
    expect([...flagged]).toEqual(expect.arrayContaining(['srv/action.syncIptableRules', 'stream.siteSave', 'user.save', 'srv.remove_server_by_id', 'author.getList']));
    const answers = await batch(calls);
    answers.forEach((a, i) => {
      const { m, key, v } = expects[i];
      const where = `${m.name} ${key}=${show(v)}`;
      if (STACK.test(a.text) || codeOf(a.env) >= 500) problems.push(`${where}: ${a.text.slice(0, 200)}`);
      else if (a.env.status !== 'ok' && names(a.env.fields, key)) problems.push(`${where}: refused: ${a.text.slice(0, 200)}`);
    });
    expect(problems).toEqual([]);
    // Calls with a switch alone are real (a dry run, a list with its options, a run-now): the later tests compare with this.
    before = await snapshot();
  }, 300_000);

  test('RPC: a non-object as the whole argument is a 4xx for methods with an input schema; never a 5xx', async () => {
    const methods = t.app.get(RpcRegistry).list().filter((m) => !runsWithoutArgs(m));
    const calls: Array<[string, unknown]> = [];
    const valid = (name: string, v: unknown) => (TOP_LEVEL_VALID[name] ?? []).some((x) => JSON.stringify(x) === JSON.stringify(v));
    for (const m of methods) for (const v of TOP_LEVEL_SHAPES) if (!valid(m.aliasOf ?? m.name, v)) calls.push([m.name, v]);
    const answers = await batch(calls);
    const problems: string[] = [];
    answers.forEach((a, i) => {
      const [name, v] = calls[i];
      const m = methods.find((x) => x.name === name)!;
      const where = `${name}(${show(v)})`;
      if (STACK.test(a.text)) problems.push(`${where}: stack trace in ${a.text.slice(0, 200)}`);
      const code = codeOf(a.env);
      if (code >= 500) problems.push(`${where}: ${a.text.slice(0, 200)}`);
      if (m.input && !(code >= 400 && code < 500)) {
        problems.push(`${where}: answered ${a.text.slice(0, 200)} (want 4xx)`);
      }
    });
    expect(problems).toEqual([]);
    expect(diff(before, await snapshot())).toEqual([]);
  }, 300_000);

  test('RPC: write methods that run without arguments: probes by name and non-objects are refused or ignored (answers compared)', async () => {
    const methods = t.app.get(RpcRegistry).list().filter(runsWithoutArgs);
    // Today: cron.reload and srv.sslCheckAll (no SSL host of the fixture is checked: not_check 1).
    expect(methods.map((m) => m.name)).toEqual(expect.arrayContaining(['cron.reload', 'srv.sslCheckAll']));
    const problems: string[] = [];
    await probeByName(methods, problems);
    const calls: Array<[string, unknown]> = [];
    for (const m of methods) for (const v of [undefined, ...TOP_LEVEL_SHAPES]) calls.push([m.name, v ?? {}]);
    const answers = await batch(calls);
    let control: any = null;
    answers.forEach((a, i) => {
      const [name, v] = calls[i];
      if (JSON.stringify(v) === '{}') { control = a.env; return; }
      const where = `${name}(${show(v)})`;
      if (STACK.test(a.text) || codeOf(a.env) >= 500) problems.push(`${where}: ${a.text.slice(0, 200)}`);
      const refused = codeOf(a.env) >= 400 && codeOf(a.env) < 500;
      const asWithout = control && codeOf(control) === codeOf(a.env) && (a.env.status === 'ok' ? same((a.env as any).result, control.result) : a.env.message === control.message);
      if (!refused && !asWithout) problems.push(`${where}: acted on it: ${a.text.slice(0, 200)} (without it: ${JSON.stringify(control).slice(0, 200)})`);
    });
    expect(problems).toEqual([]);
    // Their runs may write (the time of a run, the check results): the later tests compare with this.
    before = await snapshot();
  }, 300_000);

  test('REST: every route, probed by name with each wrong shape: refused by name or ignored; no 5xx, no stack', async () => {
    const routes = listRoutes(t.app.get(DiscoveryService), t.app.get(MetadataScanner)).filter((r) => r.path.startsWith('/api'));
    expect(routes.length).toBeGreaterThan(10);
    const problems: string[] = [];
    const skipped: string[] = [];
    const check = (where: string, r: { status: number; text: string; json: any }, control: { status: number; json: any } | null, name: string | null) => {
      if (STACK.test(r.text)) problems.push(`${where}: stack trace in ${r.text.slice(0, 200)}`);
      if (r.status >= 500) problems.push(`${where}: ${r.status} ${r.text.slice(0, 200)}`);
      if (r.json === null || typeof r.json !== 'object') problems.push(`${where}: not a JSON envelope: ${r.text.slice(0, 200)}`);
      if (!control || name === null || r.status === 429) return;
      const named = r.status >= 400 && r.status < 500 && names(r.json?.fields, name);
      if (named && r.status !== 422) problems.push(`${where}: refused the field with ${r.status} (want 422): ${r.text.slice(0, 200)}`);
      const asWithout = r.status === control.status && (r.status < 300 ? same(r.json?.result, control.json?.result) : r.json?.message === control.json?.message);
      if (!named && !asWithout) problems.push(`${where}: acted on it: ${r.status} ${r.text.slice(0, 200)} (without it: ${control.status} ${JSON.stringify(control.json).slice(0, 200)})`);
    };
    type Probe = { where: string; method: string; path: string; body?: string; name: string | null; want4xx?: boolean };
    type Res = Awaited<ReturnType<typeof rawRest>>;
    /**
     * Every name in one wrong shape, first all in one request: an answer as without them clears them all;
     * a 4xx naming some settles those (refused by name) and the rest go again; anything else (a 5xx, a
     * stack, an answer that acted on something) is narrowed down name by name, so each problem is
     * reported for its own name exactly as one probe per name would (at a fraction of the requests).
     */
    const byName = async (label: string, control: Res, names0: string[], send: (names: string[]) => Promise<Res>, where: (name: string) => string) => {
      let left = names0;
      while (left.length) {
        const r = await send(left);
        if (r.status === 429) return;
        const refused = r.status >= 400 && r.status < 500 ? left.filter((n) => names(r.json?.fields, n)) : [];
        const clean = !STACK.test(r.text) && r.status < 500 && r.json !== null && typeof r.json === 'object';
        if (clean && refused.length) {
          if (r.status !== 422) refused.forEach((n) => problems.push(`${where(n)}: refused the field with ${r.status} (want 422): ${r.text.slice(0, 200)}`));
          left = left.filter((n) => !refused.includes(n));
          continue;
        }
        const asWithout = r.status === control.status && (r.status < 300 ? same(r.json?.result, control.json?.result) : r.json?.message === control.json?.message);
        if (clean && asWithout) return;
        if (left.length === 1) { check(where(left[0]), r, control, left[0]); return; }
        for (let i = 0; i < left.length; i += 6) {
          await Promise.all(left.slice(i, i + 6).map(async (n) => check(where(n), await send([n]), control, n)));
        }
        return;
      }
    };
    for (const route of routes) {
      const label = `${route.method} ${route.path}`;
      if (SKIP_ROUTES[label]) { skipped.push(label); continue; }
      const path = route.path.replace(/:[A-Za-z_]+/g, '1').replace(/\{\*[^}]+\}/g, 'x');
      const get = route.method === 'GET';
      const control = await rawRest(route.method, path, get ? undefined : '{}');
      check(get ? label : `${label} {}`, control, null, null);
      if (get) {
        for (const v of ['true', '0x17', '1e1', 'null', 'abc', '', '1.5', '%20']) {
          await byName(label, control, probeNames.filter((n) => !textNames.has(n)),
            (ns) => rawRest('GET', `${path}?${ns.map((n) => `${encodeURIComponent(n)}=${v}`).join('&')}`),
            (n) => `${label}?${encodeURIComponent(n)}=${v}`);
        }
        await byName(label, control, probeNames.filter((n) => !listNames.has(n)),
          (ns) => rawRest('GET', `${path}?${ns.map((n) => `${encodeURIComponent(n)}=5&${encodeURIComponent(n)}=5`).join('&')}`),
          (n) => `${label}?${encodeURIComponent(n)}=5&${encodeURIComponent(n)}=5`);
      } else {
        for (const v of ANY_FIELD_SHAPES) {
          await byName(label, control, probeNames.filter((n) => !(listNames.has(n) && Array.isArray(v))),
            (ns) => rawRest(route.method, path, JSON.stringify(Object.fromEntries(ns.map((n) => [n, v])))),
            (n) => `${label} {${n}: ${show(v)}}`);
        }
      }
      const probes: Probe[] = [];
      // Non-objects as the whole body, and a body that is not JSON.
      if (!get) {
        for (const body of ['true', '[5]', '"0x17"', '1e1', 'null', '{"Id":', 'Id=5']) {
          probes.push({ where: `${label} body ${body}`, method: route.method, path, body, name: null, want4xx: body !== '[5]' });
        }
      }
      // Path parameters with wrong shapes.
      if (/:[A-Za-z_]+/.test(route.path)) {
        for (const v of ['true', '0x17', '1e1', 'null', '%00']) {
          probes.push({ where: `${label} :param=${v}`, method: route.method, path: route.path.replace(/:[A-Za-z_]+/g, v), body: get ? undefined : '{}', name: null });
        }
      }
      // A few at a time (each on its own connection).
      for (let i = 0; i < probes.length; i += 6) {
        await Promise.all(probes.slice(i, i + 6).map(async (p) => {
          const r = await rawRest(p.method, p.path, p.body);
          check(p.where, r, null, p.name);
          if (p.want4xx && r.status < 400) problems.push(`${p.where}: answered ${r.status} (want 4xx)`);
        }));
      }
    }
    expect(skipped).toEqual(Object.keys(SKIP_ROUTES).filter((k) => routes.some((r) => `${r.method} ${r.path}` === k)));
    expect(problems).toEqual([]);
    expect(diff(before, await snapshot())).toEqual([]);
  }, 600_000);
});

// ---------------------------------------------------------------------------------------------
// The examples of issue 7, one by one

const env = async (method: string, args: unknown) => (await t.rpc<any>(admin, method, args)).env as any;
const refused = async (method: string, args: unknown, field: string, message?: RegExp) => {
  const e = await env(method, args);
  expect({ method, args, status: e.status, code: e.code }).toEqual({ method, args, status: 'rules', code: 422 });
  // The field itself, or a position inside it (`type.0` for `{type: [[8]]}`).
  const key = Object.keys(e.fields ?? {}).find((k) => k === field || k.startsWith(`${field}.`));
  expect({ method, args, named: key ?? e.fields }).toEqual({ method, args, named: expect.any(String) });
  if (message) expect(e.fields[key!]).toMatch(message);
  return e;
};
const server = (Id: number) => t.ok<any>(admin, 'srv.get', { Id });

describe(`the examples of issue 7 (${db()})`, () => {
  test('srv.remove_server_by_id {Id: true} deletes nothing (was: server 1)', async () => {
    await refused('srv.remove_server_by_id', { Id: true }, 'Id', /^Id must be a number$/);
    expect((await server(1)).name).toBe('srv-1');
    const r = await t.rest<any>(admin, 'POST', '/srv/remove_server_by_id', { Id: true });
    expect(r.status).toBe(422);
    expect(r.body.fields.Id).toBe('Id must be a number');
    expect((await server(1)).name).toBe('srv-1');
  });

  test('srv.get {Id: "0x17"} is refused (was: server 23); "23" as digits still answers it', async () => {
    await refused('srv.get', { Id: '0x17' }, 'Id', /must be a number/);
    await refused('srv.get', { Id: '1e1' }, 'Id', /must be a number/);
    expect((await t.ok<any>(admin, 'srv.get', { Id: '23' })).name).toBe('srv-23');
    const r = await t.rest<any>(admin, 'GET', '/srv/test_connect_ssh?Id=0x17');
    expect(r.status).toBe(422);
    expect(r.body.fields.Id).toMatch(/must be a number/);
  });

  test('cfg.appCronDelete {Id: [5]} deletes nothing (was: task 5)', async () => {
    await refused('cfg.appCronDelete', { Id: [5] }, 'Id', /^Id must be a number$/);
    await refused('deleteAppCron', [5], '_', /expected object/);
    expect((await t.ok<any>(admin, 'cfg.getAppCron', { Id: 5 })).name).toBe('task-5');
  });

  test('srv.save_server {type: null} creates nothing (was: a type-0 server)', async () => {
    const count = (await t.ok<any[]>(admin, 'srv.getList')).length;
    await refused('srv.save_server', { name: 'typeless', type: null }, 'type', /^Type must be a number$/);
    await refused('srv.save_server', { name: 'typeless', type: '' }, 'type');
    const r = await t.rest<any>(admin, 'POST', '/srv/save_server', { name: 'typeless', type: null });
    expect(r.status).toBe(422);
    expect(r.body.fields.type).toBe('Type must be a number');
    expect((await t.ok<any[]>(admin, 'srv.getList')).length).toBe(count);
  });

  test('{Id, status: null} does not switch a server off', async () => {
    await refused('srv.save_server', { Id: 2, status: null }, 'status', /^Status must be 0 or 1$/);
    for (const status of ['0x0', '1e0', [0], {}, 2]) await refused('srv.save_server', { Id: 2, status }, 'status');
    expect((await server(2)).status).toBe(1);
    // What the map's switch sends keeps working.
    await t.ok(admin, 'srv.save_server', { Id: 2, status: 0 });
    expect((await server(2)).status).toBe(0);
    await t.ok(admin, 'srv.save_server', { Id: 2, status: '1' });
    expect((await server(2)).status).toBe(1);
  });

  test("a server named 'FREE' (any case) is refused: on create, rename and clone", async () => {
    for (const name of ['FREE', 'free', ' Free ']) await refused('srv.save_server', { name, type: 8 }, 'name', /'FREE' is reserved/);
    await refused('srv.save_server', { Id: 3, name: 'fReE' }, 'name', /'FREE' is reserved/);
    await refused('srv.clone_server', { clone_by: 3, name: 'FREE' }, 'name', /'FREE' is reserved/);
    expect((await server(3)).name).toBe('srv-3');
    expect((await t.ok<any[]>(admin, 'srv.getList')).some((s) => s.name.toUpperCase() === 'FREE')).toBe(false);
    // A name that merely contains it is fine.
    const { Id } = await t.ok(admin, 'srv.save_server', { name: 'free-proxy', type: 1 });
    await t.ok(admin, 'srv.remove_server_by_id', { Id });
  });

  test('control and zero-width characters are refused in server, cron task and user names and in config values', async () => {
    for (const name of ['web\u200b1', 'web\u00001', 'web\n1', 'web\u202e1', 'we\ufeffb']) {
      await refused('srv.save_server', { name, type: 8 }, 'name', /control or invisible characters/);
      await refused('cfg.saveAppCron', { name, cmd: 'curl=http://127.0.0.1:9/x' }, 'name', /control or invisible characters/);
      await refused('user.save', { uid: 1, name }, 'name', /control or invisible characters/);
    }
    const reg = await t.rest<any>(null, 'POST', '/user/register', { login: 'zw-user', name: 'Zero\u200dWidth', password: 'long-enough-1' });
    expect(reg.status).toBe(422);
    expect(reg.body.fields.name).toMatch(/invisible/);
    await refused('cfg.insertConfigsBatch', [{ type: 'note', value: 'a\u0000b' }], 'list.0.value', /control or invisible/);
    // Line breaks in a config value are kept (the editor is a text area).
    const ins = await t.ok<any>(admin, 'cfg.insertConfigsBatch', [{ type: 'note', value: 'line 1\nline 2' }]);
    expect(ins.list[0].value).toBe('line 1\nline 2');
    await t.ok(admin, 'cfg.removeConfigs', [ins.list[0].Id]);
  });

  test('0.0.0.0, 255.255.255.255 and :: are not server addresses', async () => {
    for (const ip of ['0.0.0.0', '255.255.255.255', '::', '::ffff:0.0.0.0']) {
      await refused('srv.save_server', { name: 'addr-x', type: 8, ip }, 'ip', /not a server's address/);
      await refused('srv.save_server', { Id: 4, ip_local: ip }, 'ip_local', /not a server's address/);
    }
    expect((await server(4)).ip_local).toBe('');
    expect((await server(4)).ip).toBe('10.0.0.4');
  });

  test("SSL hosts and domains that are bare numbers or invalid addresses ('7', '0x7f000001', '999.1.1.1') are refused", async () => {
    for (const host of ['7', '0x7f000001', '999.1.1.1', '7:443', '0.0.0.0', '255.255.255.255', '[::]']) {
      await refused('srv.sslUpdateHost', { host }, 'host', /host name or address/);
      await refused('srv.sslUpdateHost', { Id: 1, host }, 'host', /host name or address/);
    }
    for (const value of ['7', '0x7f000001', '999.1.1.1']) {
      await refused('cfg.insertConfigsBatch', [{ type: 'domain', value }], 'list.0.value', /A domain must be a host name/);
    }
    expect((await t.ok<any[]>(admin, 'srv.getSslHosts')).find((h) => h.Id === 1).host).toBe('h1.example.com');
    expect((await t.ok<any[]>(admin, 'cfg.getDomains')).map((d) => d.domain)).not.toEqual(expect.arrayContaining(['7']));
    // Real names and addresses still go in.
    const { Id } = await t.ok(admin, 'srv.sslUpdateHost', { host: '192.0.2.7:8443', not_check: 1 });
    await t.ok(admin, 'srv.sslDeleteById', { Id });
  });

  test("cron URLs must be absolute http(s) URLs: 'curl=http:/x' is refused", async () => {
    for (const cmd of ['curl=http:/x', 'curl=http:x', 'curl=//x/y', 'curl=ftp://x/']) {
      await refused('cfg.saveAppCron', { name: 'bad url', cmd }, 'cmd', /curl=/);
      await refused('cfg.saveAppCron', { Id: 6, cmd }, 'cmd', /curl=/);
    }
    const r = await t.rest<any>(admin, 'POST', '/cfg/save_app_cron', { Id: '', name: 'bad url', cmd: 'curl=http:/x' });
    expect(r.status).toBe(422);
    expect(r.body.fields.cmd).toMatch(/not an absolute http\(s\) URL/);
    expect((await t.ok<any>(admin, 'cfg.getAppCron', { Id: 6 })).cmd).toBe('curl=http://127.0.0.1:9/never');
  });

  test('roles other than 1, 10 and 100 are refused (user.save role 5)', async () => {
    const users = (await t.ok<any>(admin, 'user.getList', { limit: 500 })).list;
    const u10 = users.find((u: any) => u.login === 'user10');
    for (const role of [5, 0, 2, 1000, '5', -1, true, null]) await refused('user.save', { uid: u10.uid, role }, 'role');
    const e = await env('user.save', { uid: u10.uid, role: 5 });
    expect(e.fields.role).toBe('Role must be one of 1, 10, 100');
    expect((await t.ok<any>(admin, 'user.getList', { limit: 500 })).list.find((u: any) => u.uid === u10.uid).role).toBe(10);
    expect((await t.ok<any>(admin, 'user.save', { uid: u10.uid, role: '10' })).role).toBe(10);
  });

  test('passwords that are only white space are refused (reset and registration)', async () => {
    const users = (await t.ok<any>(admin, 'user.getList', { limit: 500 })).list;
    const u100 = users.find((u: any) => u.login === 'user100');
    for (const password of [' '.repeat(8), '\t'.repeat(8), ' \u00a0 \u3000 \n  ']) {
      await refused('user.save', { uid: u100.uid, password }, 'password', /only spaces/);
      const reg = await t.rest<any>(null, 'POST', '/user/register', { login: 'blank-pw', name: 'Blank', password });
      expect(reg.status).toBe(422);
      expect(reg.body.fields.password).toMatch(/only spaces/);
    }
    // The old password still signs in.
    const login = await t.rest<any>(null, 'POST', '/user/auth', { key: Buffer.from('user100:user100-password-1').toString('base64') });
    expect(login.body.status).toBe('ok');
  });

  test('srv.getList {type: []} is a 422, not every server; an array or object where a number is expected is a 422', async () => {
    for (const type of [[], {}, [[8]], [null], null, true, '0x8']) await refused('srv.getList', { type }, 'type');
    expect((await t.ok<any[]>(admin, 'srv.getList', { type: [0] })).length).toBe(5);
    expect((await t.ok<any[]>(admin, 'srv.getList', { type: '0' })).length).toBe(5);
    const r = await t.rest<any>(admin, 'GET', '/srv/list?type=0x0');
    expect(r.status).toBe(422);
    expect(r.body.fields.type).toBeDefined();
    expect((await t.rest<any>(admin, 'GET', '/srv/list?type=0')).body.result).toHaveLength(5);
    await refused('user.getList', { page: [2] }, 'page');
    await refused('audit.getList', { limit: {} }, 'limit');
    await refused('cron.getRuns', { Id: 1, page: '1e1' }, 'page');
    await refused('cfg.getConfigs', { type: ['domain'] }, 'type', /must be text/);
  });
});
