import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import ipaddr from 'ipaddr.js';
import { IPSET_NAMES, SyncArgs, normalizeIp, parseRange, plainV4, sortAddresses, type SyncNodeResult, type SyncResult } from '../../../contracts/firewall-rules.js';
import { PROXY_TYPE } from '../../../contracts/srv.js';
import { Role } from '../../../contracts/roles.js';
import { Rpc, type RpcContext } from '../../../core/rpc/rpc.decorator.js';
import { SshService, type SshConnection, type SshTarget } from '../../../core/ssh/ssh.service.js';
import { SrvService } from '../../srv/srv.service.js';
import { FirewallRulesService, type AllowEntry } from '../rules/firewall-rules.service.js';

/** One member of a proxy's deny set: an address or range, or a `nomatch` hole punched into a range. */
export type SetEntry = string; // '1.2.3.4', '10.0.0.0/8', '10.0.0.5 nomatch'

const FAMILIES = [
  { set: IPSET_NAMES.v4, family: 'inet', iptables: 'iptables', v6: false },
  { set: IPSET_NAMES.v6, family: 'inet6', iptables: 'ip6tables', v6: true },
] as const;


type Addr = ipaddr.IPv4 | ipaddr.IPv6;
/** `addr` lies in `net/bits` (same family). */
const inNet = (addr: Addr, net: Addr, bits: number) => addr.kind() === net.kind() && (addr as ipaddr.IPv4).match(net as ipaddr.IPv4, bits);

/**
 * The deny set: every denying IP rule and every enabled block rule, less the allowlist. An allowlisted
 * address inside a blocked range becomes a `nomatch` entry (the range stays blocked, the address
 * passes); a rule wholly inside an allowlisted range is left out. Both are reported as skipped.
 * Linear in the rules times the allowlist, with one parse per rule (50,000 rules: tens of ms).
 */
export function buildDenySet(denied: string[], ranges: string[], allow: AllowEntry[]) {
  const entries = new Set<SetEntry>();
  const skipped: SyncResult['skipped'] = [];
  // Plain IPv4 addresses (most of a deny set) are checked as 32-bit numbers against the IPv4 allowlist;
  // a single address has no room for a nomatch hole.
  const allow4 = allow.filter((a) => a.range[0].kind() === 'ipv4').map((a) => ({ a, net: v4Number(a.range[0] as ipaddr.IPv4), bits: a.range[1] }));
  for (const value of [...denied, ...ranges]) {
    const n = plainV4(value);
    if (n >= 0) {
      const hit = allow4.find((x) => x.bits === 0 || (n >>> (32 - x.bits)) === (x.net >>> (32 - x.bits)));
      if (hit) skipped.push({ value, reason: FirewallRulesService.allowReason([hit.a], value) ?? 'allowlisted' });
      else entries.add(value);
      continue;
    }
    const r = parseRange(value);
    if (!r) continue;
    const [addr, bits] = r.range;
    const covering = allow.find((a) => a.range[1] <= bits && inNet(addr, a.range[0], a.range[1]));
    if (covering) {
      skipped.push({ value: r.text, reason: FirewallRulesService.allowReason([covering], addr.toString()) ?? 'allowlisted' });
      continue;
    }
    entries.add(r.text);
    for (const a of allow) {
      if (a.range[1] > bits && inNet(a.range[0], addr, bits)) {
        entries.add(`${a.text} nomatch`);
        skipped.push({ value: a.text, reason: `inside ${r.text}, left open: ${a.reason}` });
      }
    }
  }
  return { entries: sortAddresses(entries), skipped };
}
const v4Number = (a: ipaddr.IPv4) => a.octets.reduce((n, o) => n * 256 + o, 0);

/** What the proxy answered to the first command: the `# console <addr>` line (its `$SSH_CLIENT`), normalised. */
export function consoleAddress(text: string): string | null {
  const m = /^# console (\S+)\s*$/m.exec(text);
  return m ? normalizeIp(m[1]) : null;
}
export const CONSOLE_ALLOW_REASON = "the console's own address as this proxy sees it (SSH client)";
/** The standard input of a running command (SshCallOptions.stdin as a function). */
type StdinChannel = { end(data?: string | Buffer): void };
/** The line that ends the first part of the sync command's output. */
const SAVED_MARK = '# saved';
/** Bound on one proxy's sync command (reading and writing a deny set of 100,000s of entries). */
const SYNC_COMMAND_TIMEOUT_MS = 120_000;

const isV6 = (e: SetEntry) => e.split(' ')[0].includes(':');

/** The first line the console writes to the sync command's stdin when it may go on (else the reason it may not). */
export const GO_LINE = 'go';

/**
 * The shell script run on a proxy. Stdin: first a line, `go` or the reason to stop (the console checked
 * what the proxy holds), then the `ipset restore` lines that fill the new sets. Any failing command ends
 * it with that command's status (`set -e` alone would not end it at a failure inside `if ... then a && b`,
 * hence the `|| exit $?`), and a failure destroys the temporary sets. Both swaps come before the DROP
 * rules, and `ipset restore` has made both new sets before the first swap.
 */
export function syncScript(sudo: string): string {
  const destroyNew = FAMILIES.map((f) => `${sudo}ipset destroy ${f.set}_new 2>/dev/null || true`).join('; ');
  const lines = [
    'set -e',
    'read -r verdict',
    `[ "$verdict" = ${GO_LINE} ] || { printf '%s\n' "$verdict" >&2; exit 1; }`,
    destroyNew,
    `trap 'rc=$?; if [ $rc -ne 0 ]; then ${destroyNew}; fi; exit $rc' EXIT`,
    `${sudo}ipset restore`,
  ];
  for (const f of FAMILIES) {
    // Atomic: traffic sees the old set or the new one, never a half-filled set.
    lines.push(`if ${sudo}ipset -q list -n ${f.set} >/dev/null; then ${sudo}ipset swap ${f.set}_new ${f.set} && ${sudo}ipset destroy ${f.set}_new || exit $?; else ${sudo}ipset rename ${f.set}_new ${f.set}; fi`);
  }
  for (const f of FAMILIES) {
    const rule = `INPUT -m set --match-set ${f.set} src -j DROP`;
    lines.push(`${sudo}${f.iptables} -C ${rule} 2>/dev/null || ${sudo}${f.iptables} -I ${rule.replace('INPUT', 'INPUT 1')}`);
  }
  return lines.join('\n');
}

/**
 * Sets of the sync's names that `ipset swap` cannot replace (made by hand or another tool with another
 * type or family): the reason, or null when every one present is `hash:net` of its family.
 */
export function incompatibleSets(saved: string): string | null {
  const bad: string[] = [];
  for (const f of FAMILIES) {
    const m = new RegExp(`^create ${f.set} (\\S+)(?:.*? family (\\S+))?`, 'm').exec(saved);
    if (m && (m[1] !== 'hash:net' || m[2] !== f.family)) bad.push(`${f.set} is ${m[1]} family ${m[2] ?? '?'}`);
  }
  return bad.length ? `the proxy's ipset ${bad.join(', ')}, not hash:net of its family: the sync cannot swap it in (rename or destroy it on the proxy)` : null;
}

/** The `ipset restore` input that creates and fills the new sets. */
export function restoreInput(entries: SetEntry[]): string {
  const out: string[] = [];
  for (const f of FAMILIES) {
    const mine = entries.filter((e) => isV6(e) === f.v6);
    out.push(`create ${f.set}_new hash:net family ${f.family} hashsize 1024 maxelem ${Math.max(65536, mine.length * 2)}`);
    for (const e of mine) out.push(`add ${f.set}_new ${e}`);
  }
  return out.join('\n') + '\n';
}

/** Entries of the current sets from `ipset save` output. */
export function parseSaved(text: string): Set<SetEntry> {
  const set = new Set<SetEntry>();
  const names = new Set<string>(Object.values(IPSET_NAMES));
  for (const line of text.split('\n')) {
    const m = /^add (\S+) (\S+)( nomatch)?/.exec(line.trim());
    if (m && names.has(m[1])) {
      // ipset writes canonical forms; plain IPv4 needs no parse
      const text = plainV4(m[2]) >= 0 ? m[2] : (parseRange(m[2])?.text ?? m[2]);
      set.add(`${text}${m[3] ?? ''}`);
    }
  }
  return set;
}

/**
 * `srv/action.syncIptableRules` (000 §7): applies the deny set to every proxy (type 1, status 1) over
 * SSH with ipset, atomically on each proxy (new set, swap, destroy) plus one DROP rule per family; a
 * non-root login uses `sudo -n`. One dead proxy never stops the others. `{dry_run: true}` answers what
 * would change and changes nothing.
 */
@Injectable()
export class FirewallSyncService {
  constructor(private readonly srv: SrvService, private readonly rules: FirewallRulesService, private readonly ssh: SshService) {}

  @Rpc('srv/action.syncIptableRules', {
    role: Role.admin, write: true, input: SyncArgs,
    summary: '{dry_run?}: applies the deny set (denying IP rules + enabled block rules, less the allowlist) to every proxy with ipset; answers {nodes: [{Id, name, ok, added, removed, error?}], skipped, total}',
  })
  async sync(a: z.output<typeof SyncArgs>, ctx?: RpcContext): Promise<SyncResult> {
    const [denied, ranges, allow] = await Promise.all([this.rules.deniedIps(), this.rules.blockedRanges(), this.rules.allowlist()]);
    const base = buildDenySet(denied, ranges, allow);
    const skipped = new Map<string, SyncResult['skipped'][number]>(base.skipped.map((x) => [`${x.value}|${x.reason}`, x]));
    // Self-lockout guard beyond the allowlist: the address this console connects from, as each proxy sees
    // it, is never dropped there (a range covering it gets a nomatch hole), so the next sync still gets in.
    const plans = new Map<string, ReturnType<typeof buildDenySet>>();
    const baseSet = new Set(base.entries);
    const baseRanges = base.entries.filter((e) => e.includes('/')).map((e) => parseRange(e)!.range);
    const planFor = (consoleIp: string | null) => {
      if (!consoleIp || FirewallRulesService.allowReason(allow, consoleIp)) return base;
      const addr = ipaddr.parse(consoleIp);
      if (!baseSet.has(consoleIp) && !baseRanges.some((r) => inNet(addr, r[0], r[1]))) return base; // nothing drops it
      let plan = plans.get(consoleIp);
      if (!plan) {
        const r = parseRange(consoleIp)!;
        plan = buildDenySet(denied, ranges, [...allow, { range: r.range, text: r.text, reason: CONSOLE_ALLOW_REASON }]);
        plans.set(consoleIp, plan);
        for (const x of plan.skipped) skipped.set(`${x.value}|${x.reason}`, x);
      }
      return plan;
    };
    const proxies = (await this.srv.getList({ type: PROXY_TYPE })).filter((s) => s.status === 1);
    const results = await this.ssh.fanOut(proxies, async (p): Promise<SyncNodeResult> => {
      const target: SshTarget = await this.srv.sshTarget(p.Id);
      const sudo = target.username === 'root' ? '' : 'sudo -n ';
      const opts = { actor: ctx?.actor ?? null, signal: ctx?.signal };
      // One command, audited like SshService.exec: it prints the sets as they are and the address this
      // console comes from ($SSH_CLIENT), then waits on stdin for the new sets (`ipset restore`) while the
      // plan is made here; a dry run stops after the first part. One channel, one shell start.
      // `ipset list -n` first: a proxy where ipset cannot run (not installed, sudo refused) fails here,
      // dry run included; `ipset save` of a set that does not exist yet is silent.
      const save = `${sudo}ipset list -n >/dev/null || exit $?; ${sudo}ipset save ${IPSET_NAMES.v4} 2>/dev/null; ${sudo}ipset save ${IPSET_NAMES.v6} 2>/dev/null; echo "# console \${SSH_CLIENT%% *}"; echo "${SAVED_MARK}"`;
      const command = a.dry_run ? save : `${save}\n${syncScript(sudo)}`;
      const audited = a.dry_run ? save : `${save}\n(ipset restore of the deny set, swap, DROP rules)`;
      const started = Date.now();
      // what the output callback finds (TypeScript does not follow assignments made in callbacks)
      const st: { plan: { added: string[]; removed: string[] } | null; refused: string | null; stdin: StdinChannel | null } = { plan: null, refused: null, stdin: null };
      let recorded = false;
      let conn: SshConnection | null = null;
      try {
        conn = await this.ssh.connect(target, opts);
        const chunks: Buffer[] = [];
        let tail = '';
        const r = await this.ssh.runOn(conn, command, {
          ...opts,
          commandTimeoutMs: SYNC_COMMAND_TIMEOUT_MS,
          ...(a.dry_run ? {} : { stdin: (ch: StdinChannel) => { st.stdin = ch; } }),
          onStdout: async (c) => {
            if (st.plan) return;
            chunks.push(c);
            // the marker ends the first part (looked for in the last chunk and the end of the one before)
            tail = (tail + c.toString('latin1')).slice(-(SAVED_MARK.length + c.length + 2));
            if (!tail.includes(`${SAVED_MARK}\n`)) return;
            const text = Buffer.concat(chunks).toString('utf8');
            const before = parseSaved(text);
            const { entries } = planFor(consoleAddress(text));
            const wanted = new Set(entries);
            st.plan = { added: entries.filter((e) => !before.has(e)), removed: sortAddresses([...before].filter((e) => !wanted.has(e))) };
            st.refused = incompatibleSets(text);
            st.stdin?.end(st.refused ? `${st.refused}\n` : `${GO_LINE}\n${restoreInput(entries)}`);
          },
        });
        const ok = r.code === 0 && st.plan !== null && !st.refused;
        recorded = true;
        await this.ssh.recordCommand(target, audited, opts, started, ok ? 'ok' : 'error', `exit ${r.code ?? r.signal}`);
        if (st.refused) throw new Error(st.refused);
        if (!ok || !st.plan) throw new Error(`ipset/iptables failed (exit ${r.code ?? r.signal}): ${(r.stderr || r.stdout).trim().slice(0, 500) || 'no output'}`);
        return { Id: p.Id, name: p.name, ok: true, added: st.plan.added, removed: st.plan.removed };
      } catch (e) {
        if (!recorded) await this.ssh.recordCommand(target, audited, opts, started, 'error', (e as Error).message);
        throw e;
      } finally {
        conn?.close();
      }
    });
    return {
      nodes: results.map((r) => (r.ok ? r.value : { Id: r.item.Id, name: r.item.name, ok: false, added: [], removed: [], error: r.error })),
      skipped: [...skipped.values()],
      total: base.entries.length,
    };
  }
}
