/**
 * `srv/action.syncIptableRules` with 50,000 denied addresses to one real proxy host: the namespace harness
 * of the tests (test/helpers/proxy-host.ts: nginx and OpenSSH in a network namespace, root by key) is
 * registered as a proxy; 49,000 IPv4 and 1,000 IPv6 rules are written to the database; the sync is
 * called over HTTP (RPC) and timed from the call to its answer: the first one (empty sets -> 50,000),
 * a repeat with nothing changed, one with 1,000 rules replaced, and a dry run. Each is checked on the
 * proxy (`ipset list -t`: the entries) and a banned client's request times out while another gets 200.
 * Needs root. Run: `npm run bench -- firewall-sync`.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import { loadavg } from 'node:os';
import type { DataSource } from 'typeorm';
import type { SyncResult } from '../src/contracts/firewall-rules.js';
import { startProxyHost, type ProxyHost } from '../test/helpers/proxy-host.js';
import { machine, startBenchApp, writeSection } from './lib.js';

const V4 = 49_000;
const V6 = 1_000;
const CHANGED = 1_000;
const RUNS = 5;

if (typeof process.getuid === 'function' && process.getuid() !== 0) {
  // `npm run bench` goes on with the others; bench/README.md keeps the last section measured as root
  console.log('firewall-sync: skipped, it needs root (network namespaces, ipset, sshd)');
  process.exit(0);
}

const v4 = (i: number) => `11.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const v6 = (i: number) => `2001:db8:aa::${i.toString(16)}`;

let host: ProxyHost | undefined;
const s = await startBenchApp();
try {
  host = await startProxyHost({ ipv6: true });
  const [banned, other] = host.clients;
  const rpc = async <T>(method: string, args: unknown): Promise<{ ms: number; result: T; bytes: number }> => {
    const t0 = performance.now();
    const r = await fetch(`${s.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', User: s.hash }, body: JSON.stringify({ methods: [method], args: [args], host: 0 }) });
    const text = await r.text();
    const ms = performance.now() - t0;
    const [env] = JSON.parse(text) as Array<{ status: string; result: T; message?: string }>;
    if (env.status !== 'ok') throw new Error(`${method}: ${JSON.stringify(env).slice(0, 500)}`);
    return { ms, result: env.result, bytes: text.length };
  };
  await rpc('srv.save_server', { name: 'bench-proxy', type: 1, status: 1, ip: host.ip, sshport: host.sshPort, sshlogin: 'root', private_key: host.privateKey });

  // 50,000 rules, straight into the table (the bench measures the sync, not 50,000 RPC calls)
  const ds = s.app.get<DataSource>(getDataSourceToken());
  const now = new Date();
  const rows = [...Array.from({ length: V4 - 1 }, (_, i) => v4(i)), banned, ...Array.from({ length: V6 }, (_, i) => v6(i))];
  for (let i = 0; i < rows.length; i += 500) {
    await ds.createQueryBuilder().insert().into('fw_ip_rules').values(rows.slice(i, i + 500).map((ip, j) => ({ ip, status: 1 + ((i + j) % 15), time: now }))).execute();
  }

  /** Entries in the proxy's two sets. */
  const entries = async () => {
    const out4 = await host!.exec('ipset list -t console_deny4');
    const out6 = await host!.exec('ipset list -t console_deny6');
    return Number(/Number of entries: (\d+)/.exec(out4)?.[1]) + Number(/Number of entries: (\d+)/.exec(out6)?.[1]);
  };

  const results: Array<{ what: string; ms: number[]; added: number; removed: number; bytes: number }> = [];
  const run = async (what: string, args: Record<string, unknown>, before?: () => Promise<void>) => {
    const ms: number[] = [];
    let last: SyncResult | null = null;
    let bytes = 0;
    for (let i = 0; i < RUNS; i++) {
      if (before) await before();
      const r = await rpc<SyncResult>('srv/action.syncIptableRules', args);
      const node = r.result.nodes[0];
      if (!node?.ok) throw new Error(`sync failed: ${JSON.stringify(node)}`);
      ms.push(r.ms);
      last = r.result;
      bytes = r.bytes;
      if (what === 'first') break;
    }
    const node = last!.nodes[0];
    results.push({ what, ms: ms.sort((a, b) => a - b), added: node.added.length, removed: node.removed.length, bytes });
    console.log(`${what}: ${ms.map((x) => x.toFixed(0)).join(' ')} ms, added ${node.added.length}, removed ${node.removed.length}`);
  };

  await run('first', {});
  if ((await entries()) !== V4 + V6) throw new Error(`the proxy holds ${await entries()} entries, not ${V4 + V6}`);
  if ((await host.request(banned, '/', { timeoutMs: 1500 })) !== 'timeout') throw new Error('the banned client still gets an answer');
  if ((await host.request(other, '/', { timeoutMs: 1500 })) !== 200) throw new Error('another client does not get 200');
  await run('unchanged', {});
  let round = 0;
  await run('changed', {}, async () => {
    // 1,000 rules replaced by others before each sync
    round++;
    await ds.query(`DELETE FROM fw_ip_rules WHERE ip IN (${Array.from({ length: CHANGED }, () => '?').join(', ')})`, Array.from({ length: CHANGED }, (_, i) => v4(round * CHANGED + i)));
    await ds.createQueryBuilder().insert().into('fw_ip_rules').values(Array.from({ length: CHANGED }, (_, i) => ({ ip: `12.${round}.${i >> 8}.${i & 255}`, status: 1, time: now }))).execute();
  });
  await run('dry run', { dry_run: true });
  const final = await entries();

  const load = loadavg()[0];
  const fmt = (n: number) => n.toFixed(0);
  const worst = Math.max(...results.filter((r) => r.what !== 'dry run').map((r) => r.ms[r.ms.length - 1]));
  const md = [
    '## Firewall: sync of 50,000 addresses to one proxy',
    '',
    `${machine()}; load average ${load.toFixed(1)}. Run: \`npm run bench -- firewall-sync\` (root).`,
    '',
    `One real proxy host (the tests' namespace harness: Debian's OpenSSH and ipset inside a network namespace, root by key, over the veth pair), ${(V4 + V6).toLocaleString('en')} denying IP rules (${V4.toLocaleString('en')} IPv4, ${V6.toLocaleString('en')} IPv6). \`srv/action.syncIptableRules\` over HTTP, timed from the call to its answer (deny set built from the database, \`ipset save\` read back over SSH, the diff, \`ipset restore\` of the new sets through stdin, swap, destroy, the DROP rules checked). ${RUNS} runs each except the first.`,
    '',
    '| sync | ms (each run, sorted) | added | removed | answer |',
    '|---|---|---|---|---|',
    ...results.map((r) => `| ${r.what} | ${r.ms.map(fmt).join(', ')} | ${r.added.toLocaleString('en')} | ${r.removed.toLocaleString('en')} | ${(r.bytes / 1024).toFixed(0)} KB |`),
    '',
    `Goal under 2 s: slowest ${fmt(worst)} ms (${worst < 2000 ? 'met' : 'NOT met'}). Checked on the proxy: ${final.toLocaleString('en')} entries in the two sets after the last sync, a banned client's request times out while another gets 200. "changed": ${CHANGED.toLocaleString('en')} rules replaced before each run (the answer lists them as added and removed); the sets are rebuilt whole each time (atomic swap), so a sync costs about the same whatever changed. The answer carries every added address (the first one: all 50,000).`,
  ].join('\n');
  writeSection('firewall-sync', md);
} finally {
  await host?.stop();
  await s.close();
}
process.exit(0);
