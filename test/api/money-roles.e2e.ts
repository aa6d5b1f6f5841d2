/**
 * Money roles (issue 21 "Roles"; docs/money.md "Who sees a box"), SQLite or MariaDB: every signed-in
 * user keeps boxes of their own; user B cannot read or change A's box, its transactions, rules, tags,
 * report or CSV by id (404, the same as a box that does not exist: ids tell nothing); an admin sees
 * and changes every box and shares a box with a user, who may then read and write its transactions and
 * rules but not edit, share or delete the box itself; taking the share back closes it again. Every
 * money method and route is walked, so a new one without the check fails here.
 */
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { listRoutes } from '../../src/core/http/route-table.js';
import { RpcRegistry } from '../../src/core/rpc/rpc.registry.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { pass } from '../helpers/passes.js';

let t: TestApp;
let admin: string;
let alice: string;
let bob: string;
let aliceUid: number;
let bobUid: number;
let aBox: number;
let aTr: number;
let bBox: number;
const db = () => t.app.get<DataSource>(getDataSourceToken());

async function call(hash: string, method: string, args: unknown) {
  const r = await t.rpc<any>(hash, method, args);
  return { code: r.env.status === 'ok' ? 200 : (r.env.code ?? 0), env: r.env as any };
}
const ok = <T = any>(hash: string, method: string, args: unknown) => t.ok<T>(hash, method, args);

/** Arguments naming A's box or transaction, for every money method (a method missing here fails the walk). */
const argsFor = (): Record<string, unknown> => ({
  'money.getBox': { bid: aBox },
  'money.boxUpdate': { bid: aBox, title: 'Taken', description: 'taken' },
  'money.boxDelete': { bid: aBox },
  'money.shareBox': { bid: aBox, uid: bobUid, share: 1 },
  'money.getTransactions': { bid: aBox },
  'money.getTransaction': { trid: aTr },
  'money.setTransaction': { bid: aBox, type: 0, val: 1, time_set: '2026-01-01' },
  'money.deleteTransaction': { trid: aTr },
  'money.getTagsPopular': { bid: aBox },
  'money.searchTags': { bid: aBox, q: 'sec' },
  'money.getTagsByTagsRelay': { bid: aBox, tags: 'secret' },
  'money.getRules': { bid: aBox },
  'money.setRules': { bid: aBox, rules: [] },
  'money.getReport': { bid: aBox, from: '2026-01-01', to: '2026-01-31' },
  'money.importCsv': { bid: aBox, csv: '2026-01-01,expense,1' },
});
/** Methods without a box id: they answer only what the caller sees. */
const UNSCOPED = ['money.getBoxes'];

async function snapshot() {
  const out: Record<string, unknown> = {};
  for (const table of ['money_boxes', 'money_box_users', 'money_transactions', 'money_tag_relay', 'money_box_tags', 'money_days', 'money_tag_days', 'money_rules']) {
    out[table] = (await db().query(`SELECT * FROM ${table}`)).map((r: unknown) => JSON.stringify(r)).sort();
  }
  return out;
}

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  const a = await t.session(100, 'alice');
  const b = await t.session(10, 'bob');
  alice = a.hash;
  bob = b.hash;
  aliceUid = a.uid;
  bobUid = b.uid;
  aBox = (await ok(alice, 'money.boxUpdate', { title: 'Alice', description: 'personal' })).bid;
  aTr = (await ok(alice, 'money.setTransaction', { bid: aBox, type: 1, val: '100.00', tags: 'secret,salary', time_set: '2026-01-10', description: 'pay' })).trid;
  await ok(alice, 'money.setRules', { bid: aBox, rules: [{ contains: 'pay', tags: 'salary' }] });
  bBox = (await ok(bob, 'money.boxUpdate', { title: 'Bob', description: 'his' })).bid;
  await ok(bob, 'money.setTransaction', { bid: bBox, type: 0, val: '3.00', tags: 'lunch', time_set: '2026-01-11' });
}, 60_000);
afterAll(async () => { await t?.close(); });

describe(`money roles (${pass})`, () => {
  test('every money method: another user gets 404 for A\'s box or transaction, and nothing changes', async () => {
    const methods = t.app.get(RpcRegistry).list().filter((m) => m.name.startsWith('money.')).map((m) => m.name);
    const args = argsFor();
    expect(methods.filter((m) => !(m in args) && !UNSCOPED.includes(m))).toEqual([]);
    const before = await snapshot();
    for (const m of Object.keys(args)) {
      const r = await call(bob, m, args[m]);
      // shareBox is admin-only: a role too weak is 403 before the box is looked at
      const want = m === 'money.shareBox' ? 403 : 404;
      expect([m, r.code, r.env.message]).toEqual([m, want, want === 404 ? expect.stringMatching(/Box not found|Transaction not found/) : expect.any(String)]);
    }
    expect(await snapshot()).toEqual(before);
    // the same answers as for ids that do not exist
    expect((await call(bob, 'money.getBox', { bid: 999999 })).env.message).toBe((await call(bob, 'money.getBox', { bid: aBox })).env.message);
    expect((await call(bob, 'money.getTransaction', { trid: 999999 })).env.message).toBe((await call(bob, 'money.getTransaction', { trid: aTr })).env.message);
  });

  test('lists and tags without a box id show only your own boxes', async () => {
    expect((await ok(bob, 'money.getBoxes', {})).map((b: any) => b.bid)).toEqual([bBox]);
    expect((await ok(alice, 'money.getBoxes', {})).map((b: any) => b.bid)).toEqual([aBox]);
    expect((await ok(bob, 'money.getTagsPopular', {})).map((x: any) => x.tag)).toEqual(['lunch']);
    expect(await ok(bob, 'money.searchTags', { q: 'sec' })).toEqual([]);
    expect(await ok(bob, 'money.getTagsByTagsRelay', { tags: 'salary' })).toEqual([]);
    // admins see every box
    expect((await ok(admin, 'money.getBoxes', {})).map((b: any) => b.bid).sort()).toEqual([aBox, bBox].sort());
    expect((await ok(admin, 'money.searchTags', { q: 'sec' })).map((x: any) => x.tag)).toEqual(['secret']);
  });

  test('the CSV export refuses another user\'s box (404) before sending anything', async () => {
    const res = await fetch(`${t.url}/api/money/export?bid=${aBox}`, { headers: { User: bob } });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/json/);
    expect(((await res.json()) as any).message).toBe('Box not found');
    const mine = await fetch(`${t.url}/api/money/export?bid=${aBox}`, { headers: { User: alice } });
    expect(mine.status).toBe(200);
    expect(await mine.text()).toContain('secret,salary');
    expect((await fetch(`${t.url}/api/money/export?bid=${aBox}`)).status).toBe(401);
  });

  test('an admin reads and changes any box; shares it with a user, who then uses it but cannot edit, share or delete it; unshared it is closed again', async () => {
    expect((await ok(admin, 'money.getTransactions', { bid: aBox })).balance).toBe('100.00');
    await ok(admin, 'money.setTransaction', { bid: aBox, type: 0, val: '0.01', time_set: '2026-01-12' });
    expect((await ok(alice, 'money.getTransactions', { bid: aBox })).balance).toBe('99.99');

    // only admins share (alice owns the box, still 403)
    expect((await call(alice, 'money.shareBox', { bid: aBox, uid: bobUid, share: 1 })).code).toBe(403);
    expect((await call(admin, 'money.shareBox', { bid: aBox, uid: aliceUid, share: 1 })).code).toBe(422);
    expect((await call(admin, 'money.shareBox', { bid: aBox, uid: 99999, share: 1 })).code).toBe(404);
    const s = await ok(admin, 'money.shareBox', { bid: aBox, uid: bobUid, share: 1 });
    expect(s.shares.map((x: any) => x.login)).toEqual(['bob']);
    await ok(admin, 'money.shareBox', { bid: aBox, uid: bobUid, share: 1 }); // twice: still one share

    const boxes = (await ok(bob, 'money.getBoxes', {})).map((b: any) => [b.bid, b.shared, b.can_manage]).sort((x: number[], y: number[]) => x[0] - y[0]);
    expect(boxes).toEqual([[aBox, 1, 0], [bBox, 0, 1]].sort((x, y) => x[0] - y[0]));
    expect((await ok(bob, 'money.getBox', { bid: aBox })).shares).toHaveLength(1);
    const tr = await ok(bob, 'money.setTransaction', { bid: aBox, type: 0, val: '9.99', time_set: '2026-01-13', description: 'pay back' });
    expect((await ok(bob, 'money.getTransaction', { trid: tr.trid })).tags).toBe('salary'); // the box's rule
    expect((await ok(bob, 'money.getTransactions', { bid: aBox })).balance).toBe('90.00');
    await ok(bob, 'money.setRules', { bid: aBox, rules: [{ contains: 'pay', tags: 'salary' }, { contains: 'x', tags: 'y' }] });
    expect((await ok(bob, 'money.getTagsPopular', {})).map((x: any) => x.tag).sort()).toEqual(['lunch', 'salary', 'secret']);
    for (const [m, a] of [['money.boxUpdate', { bid: aBox, title: 'Mine', description: 'now' }], ['money.boxDelete', { bid: aBox }]] as const) {
      const r = await call(bob, m, a);
      expect([m, r.code]).toEqual([m, 403]);
    }
    expect((await ok(alice, 'money.getBox', { bid: aBox })).title).toBe('Alice');

    // the admin edits the box; takes the share back: 404 again
    await ok(admin, 'money.boxUpdate', { bid: aBox, title: 'Alice (checked)', description: 'personal' });
    expect((await ok(admin, 'money.shareBox', { bid: aBox, uid: bobUid, share: 0 })).shares).toEqual([]);
    expect((await call(bob, 'money.getTransactions', { bid: aBox })).code).toBe(404);
    expect((await call(bob, 'money.getTransaction', { trid: tr.trid })).code).toBe(404);
    expect((await ok(bob, 'money.getBoxes', {})).map((b: any) => b.bid)).toEqual([bBox]);
    // the owner deletes; an admin may delete any box
    await ok(admin, 'money.boxDelete', { bid: bBox });
    expect((await call(bob, 'money.getBox', { bid: bBox })).code).toBe(404);
  });

  test('every money REST route needs a session', async () => {
    const routes = listRoutes(t.app.get(DiscoveryService), t.app.get(MetadataScanner)).filter((r) => r.path.startsWith('/api/money'));
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/money/export']);
    expect(routes.every((r) => !r.public)).toBe(true);
  });
});
