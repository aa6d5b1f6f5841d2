/**
 * The shared input fields (src/contracts/fields.ts): what each helper accepts and refuses, and the
 * area schemas built on them (servers, SSL hosts, configs, cron, users, audit).
 */
import { z } from 'zod';
import { AuditListArgs, ListArgs, passwordField, RegisterBody, UserSaveArgs } from '../../src/contracts/auth.js';
import { CronGetArgs, CronIdArgs, CronRunsArgs, CronSaveArgs, CronServiceArgs, validateCronTask } from '../../src/contracts/cron.js';
import {
  address, choice, flag, hostName, id, int, isHostName, isHostOrAddress, isHttpUrl, numericFieldsOf, oneOrMany, optionalId, text, unusableAddressReason,
} from '../../src/contracts/fields.js';
import {
  ConfigInsertBatch, ConfigRemoveBatch, ConfigUpdateBatch, normalizeSslHost, ServerCloneArgs, ServerIdArgs, ServerListArgs, ServerRemoveArgs, ServerSaveArgs, SslUpdateArgs,
} from '../../src/contracts/srv.js';

/** The message zod gives for `value` at `path` ('' = the top), or null when accepted. */
const refusal = (schema: z.ZodType, value: unknown, path = ''): string | null => {
  const r = schema.safeParse(value);
  if (r.success) return null;
  const issue = r.error.issues.find((i) => i.path.join('.') === path) ?? r.error.issues[0];
  return `${issue.path.join('.')}|${issue.message}`;
};
const parsed = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value);
  if (!r.success) throw new Error(`${JSON.stringify(value)} refused: ${r.error.message}`);
  return r.data;
};

/** The shapes of issue 7 that no numeric field may take. */
const BAD_NUMBERS: unknown[] = [true, false, [5], [], '0x17', '1e1', null, {}, '', ' 5', '5 ', '+5', '5.0', '1_000', 'five', 1.5, Number.NaN, Infinity, '9007199254740993'];

describe('int / id / optionalId', () => {
  const port = int(1, 65535, 'SSH port');
  test.each([[22, 22], ['22', 22], ['0022', 22], [65535, 65535]])('accepts %j as %j', (v, out) => {
    expect(parsed(port, v)).toBe(out);
  });
  test.each(BAD_NUMBERS.map((v) => [v]))('refuses %j, naming the field', (v) => {
    expect(refusal(port, v)).toMatch(/^\|SSH port (must be a number|must be a whole number)/);
  });
  test('range messages', () => {
    expect(refusal(port, 0)).toBe('|SSH port is at least 1');
    expect(refusal(port, '65536')).toBe('|SSH port is at most 65535');
    expect(refusal(port, undefined)).toBe('|SSH port is required');
  });
  test("'-' only where negatives make sense", () => {
    expect(refusal(int(0, 10, 'n'), '-1')).toMatch(/n must be a number/);
    expect(refusal(int(0, 10, 'n'), -1)).toBe('|n is at least 0');
    expect(parsed(int(-10, 10, 'delta'), '-7')).toBe(-7);
    expect(parsed(int(-10, 10, 'delta'), -7)).toBe(-7);
    expect(refusal(int(-10, 10, 'delta'), '--7')).toMatch(/delta must be a number/);
  });
  test('id: positive whole numbers up to INT_MAX', () => {
    expect(parsed(id(), '23')).toBe(23);
    expect(refusal(id(), 0)).toBe('|Id must be positive');
    expect(refusal(id(), '0x17')).toBe('|Id must be a number (digits only)');
    expect(refusal(id(), true)).toBe('|Id must be a number');
    expect(refusal(id(), null)).toBe('|Id must be a number');
    expect(refusal(id(), [5])).toBe('|Id must be a number');
    expect(refusal(id(), 2 ** 31)).toBe('|Id is at most 2147483647');
    for (const v of BAD_NUMBERS) expect(id().safeParse(v).success).toBe(false);
  });
  test("optionalId: '', 0 and '0' are none; null and the bad shapes are refused", () => {
    const s = z.object({ Id: optionalId() });
    for (const v of ['', 0, '0']) expect(parsed(s, { Id: v })).toEqual({});
    expect(parsed(s, {})).toEqual({});
    expect(parsed(s, { Id: '9' })).toEqual({ Id: 9 });
    for (const v of BAD_NUMBERS.filter((x) => x !== '')) expect(refusal(s, { Id: v }, 'Id')).toMatch(/^Id\|Id must/);
  });
});

describe('flag / choice / oneOrMany', () => {
  test('flag: 0, 1, "0", "1", true, false', () => {
    const f = flag('Status');
    expect([0, 1, '0', '1', true, false].map((v) => parsed(f, v))).toEqual([0, 1, 0, 1, 1, 0]);
    for (const v of [null, 2, '2', -1, 'true', 'on', [1], {}, '', '0x1', '1e0', 0.5]) expect(refusal(f, v)).toBe('|Status must be 0 or 1');
  });
  test('choice: one of the listed numbers', () => {
    const c = choice([1, 10, 100], 'Role');
    expect(parsed(c, '10')).toBe(10);
    expect(refusal(c, 5)).toBe('|Role must be one of 1, 10, 100');
    expect(refusal(c, '0xa')).toMatch(/Role must be a number/);
    for (const v of BAD_NUMBERS) expect(c.safeParse(v).success).toBe(false);
  });
  test('oneOrMany: a value or a non-empty list', () => {
    const t = oneOrMany(choice([0, 8, 9], 'Type'), 'Type');
    expect(parsed(t, 8)).toBe(8);
    expect(parsed(t, ['8', 9])).toEqual([8, 9]);
    for (const v of [[], {}, null, true, '0x8', [[8]], [null]]) expect(t.safeParse(v).success).toBe(false);
  });
});

describe('text', () => {
  const n = text('Name', 10, { min: 1 });
  test('trims; refuses non-strings, control and zero-width characters', () => {
    expect(parsed(n, '  web-1 ')).toBe('web-1');
    expect(parsed(n, 'Сервер')).toBe('Сервер');
    for (const v of [5, true, null, ['a'], { a: 1 }]) expect(refusal(n, v)).toBe('|Name must be text');
    expect(refusal(n, '   ')).toBe('|Name is required');
    expect(refusal(n, 'x'.repeat(11))).toBe('|Name is at most 10 characters');
    for (const c of ['\u0000', '\u0007', '\n', '\t', '\u007f', '\u0085', '\u200b', '\u200c', '\u200d', '\u200e', '\u202e', '\u2060', '\u2066', '\ufeff', '\u00ad', '\u2028']) {
      expect(refusal(n, `a${c}b`)).toMatch(/^\|Name must not contain control or invisible characters \(U\+[0-9A-F]{4}\)$/);
    }
  });
  test('multi-line keeps tab and line breaks, still refuses the others', () => {
    const v = text('value', 100, { multiline: true, trim: false });
    expect(parsed(v, ' a\n\tb\r\n')).toBe(' a\n\tb\r\n');
    expect(v.safeParse('a\u0000b').success).toBe(false);
    expect(v.safeParse('a\u200bb').success).toBe(false);
  });
});

describe('addresses, host names, URLs', () => {
  test.each(['10.0.0.1', '1.2.3.4', '::1', '2001:db8::1', 'fe80::1', '::ffff:10.0.0.1'])('address %s is usable', (ip) => {
    expect(unusableAddressReason(ip)).toBeNull();
    expect(address('IP').safeParse(ip).success).toBe(true);
  });
  test.each(['0.0.0.0', '0.1.2.3', '255.255.255.255', '::', '0:0:0:0:0:0:0:0', '::0', '::ffff:0.0.0.0', '::ffff:255.255.255.255'])('address %s is refused', (ip) => {
    expect(unusableAddressReason(ip)).not.toBeNull();
    expect(refusal(address('IP'), ip)).toMatch(/^\|IP .* is the (unspecified|broadcast) address, not a server's address$/);
  });
  test('address: empty is not set; other text is refused', () => {
    expect(parsed(address('IP'), '')).toBe('');
    for (const v of ['999.1.1.1', '1.2.3', '01.2.3.4', 'host', '7']) expect(refusal(address('IP'), v)).toBe('|IP must be an IPv4 or IPv6 address');
    expect(refusal(address('IP'), null)).toBe('|IP must be text');
  });
  test.each(['example.com', 'a-b.example.co.uk', 'localhost', 'xn--80ak6aa92e.com', 'host7', '7host.com', '1.2.3.com'])('%s is a host name', (h) => {
    expect(isHostName(h)).toBe(true);
  });
  test.each(['7', '0x7f000001', '999.1.1.1', '1.2.3.4', '127.1', 'a.0x10', 'a.123', '-a.com', 'a-.com', 'a..com', '.com', 'a.com.', 'a_b.com', 'a b.com', ''])('%j is not a host name', (h) => {
    expect(isHostName(h)).toBe(false);
  });
  test('host or address', () => {
    expect(isHostOrAddress('1.2.3.4')).toBe(true);
    expect(isHostOrAddress('0.0.0.0')).toBe(false);
    expect(isHostOrAddress('999.1.1.1')).toBe(false);
    expect(parsed(hostName('Domain'), ' Example.COM ')).toBe('example.com');
    expect(hostName('Domain').safeParse('7').success).toBe(false);
  });
  test.each(['http://x', 'https://example.com/a?b=1', 'http://127.0.0.1:9/hook', 'HTTP://X/', 'http://user:pw@host/p'])('%s is an absolute http(s) URL', (u) => {
    expect(isHttpUrl(u)).toBe(true);
  });
  test.each(['http:/x', 'http:x', 'http:\\\\x', 'http:///x', '//x', 'x', 'ftp://x', 'file:///etc/passwd', 'http://', 'http:// x', ' http://x', 'javascript:alert(1)'])('%s is not', (u) => {
    expect(isHttpUrl(u)).toBe(false);
  });
});

describe('area schemas use the shared fields', () => {
  test('servers: the examples of issue 7 are refused', () => {
    expect(refusal(ServerRemoveArgs, { Id: true }, 'Id')).toBe('Id|Id must be a number');
    expect(refusal(ServerIdArgs, { Id: '0x17' }, 'Id')).toBe('Id|Id must be a number (digits only)');
    expect(refusal(ServerSaveArgs, { Id: 1, type: null }, 'type')).toBe('type|Type must be a number');
    expect(refusal(ServerSaveArgs, { Id: 1, status: null }, 'status')).toBe('status|Status must be 0 or 1');
    expect(refusal(ServerSaveArgs, { name: 'FREE', type: 8 }, 'name')).toMatch(/^name\|Name 'FREE' is reserved/);
    expect(refusal(ServerSaveArgs, { name: 'free', type: 8 }, 'name')).toMatch(/^name\|Name 'FREE' is reserved/);
    expect(refusal(ServerCloneArgs, { clone_by: 1, name: 'Free' }, 'name')).toMatch(/reserved/);
    expect(refusal(ServerSaveArgs, { name: 'web\u200b1', type: 8 }, 'name')).toMatch(/invisible/);
    expect(refusal(ServerSaveArgs, { Id: 1, ip: '0.0.0.0' }, 'ip')).toMatch(/unspecified/);
    expect(refusal(ServerSaveArgs, { Id: 1, ip: '255.255.255.255' }, 'ip')).toMatch(/broadcast/);
    expect(refusal(ServerSaveArgs, { Id: 1, ip_local: '::' }, 'ip_local')).toMatch(/unspecified/);
    expect(refusal(ServerListArgs, { type: [] }, 'type')).not.toBeNull();
    expect(refusal(ServerListArgs, { type: {} }, 'type')).not.toBeNull();
    expect(parsed(ServerListArgs, { type: '8' })).toEqual({ type: 8 });
    expect(parsed(ServerListArgs, { type: [8, '9'] })).toEqual({ type: [8, 9] });
    expect(parsed(ServerListArgs, undefined)).toEqual({});
    // What the forms and the map send keeps working.
    expect(parsed(ServerSaveArgs, { Id: '3', status: 0, sshport: '22', type: '8', cod: '0', ip: '10.0.0.1' })).toEqual({ Id: 3, status: 0, sshport: 22, type: 8, cod: 0, ip: '10.0.0.1' });
    expect(parsed(ServerSaveArgs, { Id: 3, balance_web: true })).toEqual({ Id: 3, balance_web: 1 });
    expect(parsed(ServerRemoveArgs, { Id: 3, get_map: true })).toEqual({ Id: 3, get_map: 1 });
    expect(refusal(ServerSaveArgs, { Id: 1, sshport: Number.NaN }, 'sshport')).toBe('sshport|SSH port must be a number');
  });
  test('SSL hosts: bare numbers and invalid addresses are refused', () => {
    for (const host of ['7', '0x7f000001', '999.1.1.1', '0.0.0.0', '255.255.255.255', '[::]', '7:443', 'a.0x7f']) {
      expect(refusal(SslUpdateArgs, { host }, 'host')).toMatch(/^host\|Host must be a host name or address/);
    }
    expect(normalizeSslHost('Example.com:443')).toBe('example.com');
    expect(normalizeSslHost('1.2.3.4:8443')).toBe('1.2.3.4:8443');
    expect(normalizeSslHost('[2001:db8::1]')).toBe('[2001:db8::1]');
    expect(refusal(SslUpdateArgs, { Id: [5], not_check: 1 }, 'Id')).toBe('Id|Id must be a number');
    expect(refusal(SslUpdateArgs, { Id: 5, not_check: null }, 'not_check')).toBe('not_check|not_check must be 0 or 1');
  });
  test('configs: domains are host names; values are text without control characters (line breaks kept)', () => {
    for (const value of ['7', '0x7f000001', '999.1.1.1', '1.2.3.4']) {
      expect(refusal(ConfigInsertBatch, [{ type: 'domain', value }], 'list.0.value')).toMatch(/A domain must be a host name/);
    }
    expect(parsed(ConfigInsertBatch, [{ type: 'note', value: 'a\nb' }])).toEqual({ list: [{ type: 'note', value: 'a\nb' }] });
    expect(refusal(ConfigInsertBatch, [{ type: 'note', value: 'a\u0000b' }], 'list.0.value')).toMatch(/invisible/);
    expect(refusal(ConfigInsertBatch, [{ type: 'cluster_host', value: 'http:/x|a' }], 'list.0.value')).toMatch(/base URL/);
    expect(refusal(ConfigUpdateBatch, [{ Id: true, type: 'a', value: 'b' }], 'list.0.Id')).toBe('list.0.Id|Id must be a number');
    expect(parsed(ConfigRemoveBatch, [3, '4', { Id: 5 }, { Id: '6' }])).toEqual({ list: [3, 4, 5, 6] });
    for (const bad of [[5], '0x17', null, true, {}, { Id: null }]) expect(refusal(ConfigRemoveBatch, [bad], 'list.0')).toMatch(/^list\.0\|Id (must be|is required)/);
  });
  test('cron: Id shapes, curl= absolute, names without control characters', () => {
    expect(refusal(CronIdArgs, { Id: [5] }, 'Id')).toBe('Id|Id must be a number');
    expect(refusal(CronIdArgs, '0x17', 'Id')).toBe('Id|Id must be a number (digits only)');
    expect(parsed(CronIdArgs, '5')).toEqual({ Id: 5 });
    expect(refusal(CronGetArgs, { Id: null }, 'Id')).toBe('Id|Id must be a number');
    expect(refusal(CronRunsArgs, { Id: 1, page: '1e1' }, 'page')).toMatch(/page must be a number/);
    expect(refusal(CronServiceArgs, { service: null }, 'service')).toBe('service|service must be 0 or 1');
    expect(refusal(CronServiceArgs, { status: 2 }, 'status')).toBe('status|status must be 0 or 1');
    expect(refusal(CronServiceArgs, {}, 'service')).toMatch(/service is required/);
    expect(refusal(CronSaveArgs, { name: 'a\u0007' }, 'name')).toMatch(/invisible/);
    expect(refusal(CronSaveArgs, { name: 5 }, 'name')).toBe('name|Name must be text');
    expect(refusal(CronSaveArgs, { second: [0] }, 'second')).toBe('second|second must be text');
    expect(parsed(CronSaveArgs, { Id: 1, second: 5, cmd: 'curl=https://x/\n' })).toEqual({ Id: 1, second: '5', cmd: 'curl=https://x/' });
    const task = { name: 'n', second: '0', minute: '*', hour: '*', day: '*', month: '*', week: '*' };
    expect(validateCronTask({ ...task, cmd: 'curl=http:/x' })).toEqual({ cmd: expect.stringMatching(/not an absolute http\(s\) URL/) });
    expect(validateCronTask({ ...task, cmd: 'curl=http:x' })).toEqual({ cmd: expect.stringMatching(/not an absolute http\(s\) URL/) });
    expect(validateCronTask({ ...task, cmd: 'curl=http://x/' })).toBeNull();
  });
  test('users and audit: roles 1, 10, 100; no blank password; page/limit strict', () => {
    expect(refusal(UserSaveArgs, { uid: 2, role: 5 }, 'role')).toBe('role|Role must be one of 1, 10, 100');
    expect(refusal(UserSaveArgs, { uid: 2, role: 0 }, 'role')).toMatch(/Role/);
    expect(parsed(UserSaveArgs, { uid: '2', role: '10', active: true })).toEqual({ uid: 2, role: 10, active: 1 });
    expect(refusal(UserSaveArgs, { uid: true }, 'uid')).toBe('uid|uid must be a number');
    expect(refusal(UserSaveArgs, { uid: 2, password: '         ' }, 'password')).toBe('password|Password cannot be only spaces');
    expect(refusal(passwordField, ' \t \n \u00a0 \u3000 ')).toBe('|Password cannot be only spaces');
    expect(passwordField.safeParse(' pass word ').success).toBe(true);
    expect(refusal(RegisterBody, { login: 'a', name: 'A\u202eB', password: 'long-enough' }, 'name')).toMatch(/invisible/);
    expect(refusal(ListArgs, { page: [2] }, 'page')).toBe('page|page must be a number');
    expect(refusal(AuditListArgs, { limit: '1e1' }, 'limit')).toMatch(/limit must be a number/);
    expect(refusal(AuditListArgs, { method: ['x'] }, 'method')).toBe('method|method must be text');
    expect(parsed(ListArgs, { page: '2', limit: 10 })).toEqual({ page: 2, limit: 10 });
  });
});

describe('numericFieldsOf: the numeric fields of an input schema', () => {
  const paths = (s: z.ZodType) => numericFieldsOf(s).map((f) => `${f.path.join('.')}:${f.kind}${f.listOk ? '+list' : ''}`).sort();
  test('walks objects, unions, arrays, pipes, optionals and defaults', () => {
    expect(paths(ServerSaveArgs)).toEqual(expect.arrayContaining(['Id:id', 'type:choice', 'cod:int', 'status:flag', 'sshport:int', 'balance_db:choice', 'balance_web:flag']));
    expect(paths(ServerListArgs)).toEqual(['type.0:choice', 'type:choice+list']);
    expect(paths(ConfigUpdateBatch)).toEqual(['list.0.Id:id']);
    expect(paths(ConfigRemoveBatch)).toEqual(['list.0:id']);
    expect(paths(CronIdArgs)).toEqual(['Id:id']);
    expect(paths(CronSaveArgs)).toEqual(['Id:optionalId', 'suspended:flag']);
    expect(paths(CronServiceArgs)).toEqual(['service:flag', 'status:flag']);
    expect(paths(UserSaveArgs)).toEqual(['active:flag', 'role:choice', 'uid:id']);
    expect(paths(ListArgs)).toEqual(['limit:int', 'page:int']);
  });
});
