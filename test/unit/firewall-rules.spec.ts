/** Firewall rule contracts: address normal forms, CIDR ranges, block-rule cleaning and preview, inputs. */
import {
  IpBanArgs, IpRulesListArgs, blockPreview, cleanBlockValue, compareAddresses, isDenyingStatus, normalizeIp, parseRange, rangeContains,
} from '../../src/contracts/firewall-rules.js';
import { buildDenySet, parseSaved, restoreInput, syncScript } from '../../src/modules/firewall/sync/firewall-sync.service.js';

test('addresses: dotted quads and IPv6 in normal form; other IPv4 spellings and bad octets refused', () => {
  expect(normalizeIp(' 1.2.3.4 ')).toBe('1.2.3.4');
  expect(normalizeIp('2001:DB8:0::1')).toBe('2001:db8::1');
  expect(normalizeIp('::ffff:1.2.3.4')).toBe('1.2.3.4');
  for (const bad of ['0x7f.1', '127.1', '999.1.1.1', '7', '0x7f000001', '', 'a.b.c.d', '1.2.3.4/8']) expect(normalizeIp(bad)).toBeNull();
});

test('CIDR ranges: network address, host ranges collapse to the address, bad prefixes refused, containment per family', () => {
  expect(parseRange('10.1.2.3/8')?.text).toBe('10.0.0.0/8');
  expect(parseRange('2001:db8::5/32')?.text).toBe('2001:db8::/32');
  expect(parseRange('1.2.3.4/32')?.text).toBe('1.2.3.4');
  for (const bad of ['1.2.3.4/33', 'x/8', '1.2.3.4/', '1.2.3.4/a', '127.1/8']) expect(parseRange(bad)).toBeNull();
  const r = parseRange('10.0.0.0/8')!.range;
  expect(rangeContains(r, '10.9.9.9')).toBe(true);
  expect(rangeContains(r, '11.0.0.1')).toBe(false);
  expect(rangeContains(r, '::1')).toBe(false);
});

test('block value: empty lines removed, duplicates dropped, sorted numerically (IPv4 first), bad lines named', () => {
  const { lines, errors } = cleanBlockValue('10.0.0.10\n\n  10.0.0.9\nbad\n2001:db8::1\n10.0.0.9\r\n1.0.0.0/8\n');
  expect(lines).toEqual(['1.0.0.0/8', '10.0.0.9', '10.0.0.10', '2001:db8::1']);
  expect(errors).toEqual(['Line 4: "bad" is not an IP address or CIDR range']);
  expect(['10.0.0.10', '9.0.0.1', '10.0.0.9'].sort(compareAddresses)).toEqual(['9.0.0.1', '10.0.0.9', '10.0.0.10']);
});

test('preview: one line cut at 50 characters', () => {
  const p = blockPreview('1.1.1.1\n2.2.2.2\n\n3.3.3.3\n4.4.4.4\n5.5.5.5\n6.6.6.6\n7.7.7.7');
  expect(p).toBe('1.1.1.1, 2.2.2.2, 3.3.3.3, 4.4.4.4, 5.5.5.5, 6.6.6…');
  expect(p.length).toBe(51);
  expect(blockPreview('1.1.1.1')).toBe('1.1.1.1');
});

test('statuses and inputs: denying statuses are 1 to 15; ban takes only denying statuses; strict numbers', () => {
  expect([-1, 0, 1, 12, 15, 16].map(isDenyingStatus)).toEqual([false, false, true, true, true, false]);
  expect(IpBanArgs.safeParse({ ip: '1.2.3.4' }).success).toBe(true);
  expect(IpBanArgs.safeParse({ ip: '1.2.3.4', status: 0 }).success).toBe(false);
  expect(IpBanArgs.safeParse({ ip: '1.2.3.4', status: true }).success).toBe(false);
  expect(IpBanArgs.safeParse({ ip: 'x' }).error?.issues[0].message).toBe('IP must be an IPv4 or IPv6 address');
  expect(IpRulesListArgs.parse({ status: '1', p_: '2' })).toEqual({ status: 1, p_: 2 });
  expect(IpRulesListArgs.safeParse({ status: '0x1' }).success).toBe(false);
});

describe('sync plan', () => {
  const allowOf = (values: Array<[string, string]>) => values.map(([v, reason]) => ({ range: parseRange(v)!.range, text: parseRange(v)!.text, reason }));

  test('deny set: rules and ranges less the allowlist; an allowlisted address inside a range is a nomatch hole; all reported', () => {
    const allow = allowOf([['127.0.0.0/8', 'loopback'], ['10.0.0.5', 'the address of server p1'], ['192.168.0.0/16', 'in the cluster config']]);
    const { entries, skipped } = buildDenySet(['1.2.3.4', '10.0.0.5', '2001:db8::1'], ['10.0.0.0/8', '192.168.1.0/24', '5.6.7.0/24'], allow);
    expect(entries).toEqual(['1.2.3.4', '5.6.7.0/24', '10.0.0.0/8', '10.0.0.5 nomatch', '2001:db8::1']);
    expect(skipped).toEqual([
      { value: '10.0.0.5', reason: '10.0.0.5 is allowlisted: the address of server p1' },
      { value: '10.0.0.5', reason: 'inside 10.0.0.0/8, left open: the address of server p1' },
      { value: '192.168.1.0/24', reason: '192.168.1.0 is allowlisted: in the cluster config (192.168.0.0/16)' },
    ]);
  });

  test('restore input fills new sets per family; the script swaps atomically and keeps one DROP rule per family; sudo for non-root', () => {
    const input = restoreInput(['1.2.3.4', '10.0.0.0/8', '10.0.0.5 nomatch', '2001:db8::1']);
    expect(input.split('\n')).toEqual([
      'create console_deny4_new hash:net family inet hashsize 1024 maxelem 65536',
      'add console_deny4_new 1.2.3.4', 'add console_deny4_new 10.0.0.0/8', 'add console_deny4_new 10.0.0.5 nomatch',
      'create console_deny6_new hash:net family inet6 hashsize 1024 maxelem 65536',
      'add console_deny6_new 2001:db8::1', '',
    ]);
    const script = syncScript('sudo -n ');
    expect(script).toContain('sudo -n ipset restore');
    expect(script).toContain('sudo -n ipset swap console_deny4_new console_deny4 && sudo -n ipset destroy console_deny4_new');
    expect(script).toContain('sudo -n iptables -C INPUT -m set --match-set console_deny4 src -j DROP 2>/dev/null || sudo -n iptables -I INPUT 1 -m set --match-set console_deny4 src -j DROP');
    expect(script).toContain('ip6tables -C INPUT -m set --match-set console_deny6 src -j DROP');
    expect(syncScript('')).not.toContain('sudo');
  });

  test('ipset save output is read back in the same normal form', () => {
    const saved = parseSaved('create console_deny4 hash:net family inet hashsize 1024 maxelem 65536\nadd console_deny4 1.2.3.4\nadd console_deny4 10.0.0.0/8\nadd console_deny4 10.0.0.5 nomatch\nadd other 9.9.9.9\nadd console_deny6 2001:db8:0::1\n');
    expect([...saved]).toEqual(['1.2.3.4', '10.0.0.0/8', '10.0.0.5 nomatch', '2001:db8::1']);
  });
});
