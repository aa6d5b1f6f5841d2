/**
 * The fast paths of the sync plan (a deny set of 50,000 addresses): numeric sorting of plain dotted
 * quads merged with ranges and holes, the IPv4 allowlist check on 32-bit numbers, `ipset save` read-back
 * without parsing plain addresses, and the console address the proxy reports. Each is checked against
 * the plain (slow) definition.
 */
import { compareAddresses, parseRange, sortAddresses } from '../../src/contracts/firewall-rules.js';
import { buildDenySet, consoleAddress, parseSaved } from '../../src/modules/firewall/sync/firewall-sync.service.js';

/** A small deterministic generator (no flaky data). */
function rng(seed: number) {
  let x = seed >>> 0;
  return () => ((x = (Math.imul(x ^ (x >>> 15), 2246822507) + 0x9e3779b9) >>> 0) / 2 ** 32);
}
const allowOf = (values: Array<[string, string]>) => values.map(([v, reason]) => ({ range: parseRange(v)!.range, text: parseRange(v)!.text, reason }));

test('sortAddresses orders like compareAddresses: plain quads, ranges, nomatch holes, IPv6, and the same address in several forms', () => {
  const r = rng(7);
  const list = new Set<string>();
  for (let i = 0; i < 3000; i++) {
    const a = `${Math.floor(r() * 4) * 60}.${Math.floor(r() * 3)}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}`;
    const k = r();
    if (k < 0.7) list.add(a);
    else if (k < 0.8) list.add(parseRange(`${a}/${8 + Math.floor(r() * 24)}`)!.text);
    else if (k < 0.9) list.add(`${a} nomatch`);
    else list.add(`2001:db8:${Math.floor(r() * 65535).toString(16)}::${Math.floor(r() * 255).toString(16)}`);
  }
  list.add('10.0.0.0/8');
  list.add('10.0.0.0');
  list.add('10.0.0.0 nomatch');
  list.add('0.0.0.0/0');
  list.add('255.255.255.255');
  expect(sortAddresses(list)).toEqual([...list].sort(compareAddresses));
  expect(sortAddresses(['10.0.0.10', '9.0.0.1', '10.0.0.9', '10.0.0.0/24', '::1', '10.0.0.9 nomatch'])).toEqual(['9.0.0.1', '10.0.0.0/24', '10.0.0.9', '10.0.0.9 nomatch', '10.0.0.10', '::1']);
});

test('deny set: plain IPv4 rules against the allowlist as numbers give what the range check gives', () => {
  const allow = allowOf([['127.0.0.0/8', 'loopback'], ['10.1.0.0/16', 'in the cluster config'], ['10.2.3.4', 'the address of server p'], ['::1', 'loopback']]);
  const denied = ['10.1.255.255', '10.2.0.0', '10.2.3.4', '10.2.3.5', '127.0.0.1', '128.0.0.1', '9.255.255.255', '2001:db8::1'];
  const { entries, skipped } = buildDenySet(denied, ['10.2.0.0/16'], allow);
  expect(entries).toEqual(['9.255.255.255', '10.2.0.0/16', '10.2.0.0', '10.2.3.4 nomatch', '10.2.3.5', '128.0.0.1', '2001:db8::1']);
  expect(skipped).toEqual([
    { value: '10.1.255.255', reason: '10.1.255.255 is allowlisted: in the cluster config (10.1.0.0/16)' },
    { value: '10.2.3.4', reason: '10.2.3.4 is allowlisted: the address of server p' },
    { value: '127.0.0.1', reason: '127.0.0.1 is allowlisted: loopback (127.0.0.0/8)' },
    { value: '10.2.3.4', reason: 'inside 10.2.0.0/16, left open: the address of server p' },
  ]);
  // an allowlist row of 0.0.0.0/0 keeps every IPv4 address out
  expect(buildDenySet(['1.2.3.4', '2001:db8::2'], [], allowOf([['0.0.0.0/0', 'everything']])).entries).toEqual(['2001:db8::2']);
});

test('50,000 rules in reverse order: planned and sorted numerically (the bench times it)', () => {
  const denied = Array.from({ length: 50_000 }, (_, i) => `11.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`).reverse();
  const allow = allowOf([['127.0.0.0/8', 'loopback'], ['11.0.100.0/24', 'in the cluster config']]);
  const { entries, skipped } = buildDenySet(denied, [], allow);
  expect(entries).toHaveLength(50_000 - 256);
  expect(skipped).toHaveLength(256);
  expect(entries[0]).toBe('11.0.0.0');
  expect(entries[entries.length - 1]).toBe(`11.0.${(49_999 >> 8) & 255}.${49_999 & 255}`);
});

test('ipset save output: plain addresses taken as written, others in normal form; the console line', () => {
  const text = [
    'create console_deny4 hash:net family inet hashsize 1024 maxelem 65536',
    'add console_deny4 1.2.3.4', 'add console_deny4 10.0.0.0/8', 'add console_deny4 10.0.0.5 nomatch', 'add other 9.9.9.9',
    'add console_deny6 2001:db8:0::1', '# console 10.231.7.1', '',
  ].join('\n');
  expect([...parseSaved(text)]).toEqual(['1.2.3.4', '10.0.0.0/8', '10.0.0.5 nomatch', '2001:db8::1']);
  expect(consoleAddress(text)).toBe('10.231.7.1');
  expect(consoleAddress('# console ::ffff:10.1.2.3\n')).toBe('10.1.2.3');
  expect(consoleAddress('# console \n')).toBeNull();
});
