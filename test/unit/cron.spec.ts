import {
  actionArgument, actionName, CRON_DEFAULTS, CronCmdError, CronGetArgs, CronIdArgs, CronSaveArgs, CronServiceArgs, cronFieldError, cronPattern,
  httpRequestOf, nextRunOf, parseCronCmd, serializeCronCmd, validateCronTask, type CronCmd,
} from '../../src/contracts/cron.js';

describe('cron cmd: parse and serialise (000 §3)', () => {
  const canonical = [
    'path=srv/action|method=syncIptableRules',
    'path=cfg|method=appCronDelete|arg=5',
    'path=cfg|method=insertConfigsBatch|arg=[{"type":"t","value":"v"}]',
    'path=srv|method=getList|arg=type=8',
    'path=x|method=y|arg=a&&b&&c',
    'path=x|method=y|arg=',
    'path=x|method=y|arg=k=v=w&&other= spaced ',
    'curl=http://127.0.0.1:8080/hook',
    'curl=http://127.0.0.1:8080/hook|method=GET',
    'curl=https://example.com/a?b=1|method=POST|arg=x=1&&y=two',
    'curl=https://example.com/api|method=PUT|arg={"a":1}',
    'curl=https://example.com/api|arg=q=search',
  ];

  test.each(canonical)('round trip of the string: %s', (s) => {
    expect(serializeCronCmd(parseCronCmd(s))).toBe(s);
  });

  test.each(canonical)('round trip of the parsed form: %s', (s) => {
    const c = parseCronCmd(s);
    expect(parseCronCmd(serializeCronCmd(c))).toEqual(c);
  });

  test('every form parses to its parts', () => {
    expect(parseCronCmd('path=srv/action|method=syncIptableRules')).toEqual({ kind: 'action', path: 'srv/action', method: 'syncIptableRules' });
    expect(parseCronCmd('path=x|method=y|arg=a&&b')).toEqual({ kind: 'action', path: 'x', method: 'y', args: ['a', 'b'] });
    expect(parseCronCmd('curl=http://h/x')).toEqual({ kind: 'http', url: 'http://h/x' });
    expect(parseCronCmd('curl=http://h/x|method=post|arg=a=1')).toEqual({ kind: 'http', url: 'http://h/x', method: 'post', args: ['a=1'] });
    expect(actionName(parseCronCmd('path=srv/action|method=syncIptableRules') as never)).toBe('srv/action.syncIptableRules');
  });

  test('other orders, spaces and empty parts parse, and serialise canonically', () => {
    const c = parseCronCmd(' method = syncIptableRules | path = srv/action ||');
    expect(c).toEqual({ kind: 'action', path: 'srv/action', method: 'syncIptableRules' });
    expect(serializeCronCmd(c)).toBe('path=srv/action|method=syncIptableRules');
    expect(serializeCronCmd(parseCronCmd('arg=a=1|method=POST|curl=http://h/'))).toBe('curl=http://h/|method=POST|arg=a=1');
    expect(parseCronCmd('PATH=a|METHOD=b')).toEqual({ kind: 'action', path: 'a', method: 'b' });
  });

  test.each([
    ['', /needs path= and method=/],
    ['path=srv/action', /needs method=/],
    ['path=|method=x', /path= is empty/],
    ['curl=', /curl= is empty/],
    ['path=a|curl=http://h|method=x', /not both/],
    ['path=a|method=b|method=c', /given twice/],
    ['path=a|method=b|shell=rm -rf /', /unknown key 'shell'/],
    ['echo hello', /not key=value/],
    ['method=GET', /needs path= and method=/],
  ])('refuses %j', (s, msg) => {
    expect(() => parseCronCmd(s)).toThrow(CronCmdError);
    expect(() => parseCronCmd(s)).toThrow(msg);
  });

  test('the serialiser refuses what it cannot write back', () => {
    expect(() => serializeCronCmd({ kind: 'action', path: 'a|b', method: 'm' })).toThrow(/cannot contain '\|'/);
    expect(() => serializeCronCmd({ kind: 'http', url: 'http://h', args: ['a&&b'] })).toThrow(/cannot contain '&&'/);
    const ok: CronCmd = { kind: 'http', url: 'http://h', method: 'POST', args: ['a=1', 'b=2'] };
    expect(serializeCronCmd(ok)).toBe('curl=http://h|method=POST|arg=a=1&&b=2');
  });
});

describe('cron action arguments', () => {
  test('none, key=value pairs, one JSON value, one text, positional list', () => {
    expect(actionArgument(undefined)).toBeUndefined();
    expect(actionArgument(['Id=5', 'name=web 1', 'on=true', 'list=[1,2]'])).toEqual({ Id: 5, name: 'web 1', on: true, list: [1, 2] });
    expect(actionArgument(['{"Id":5,"x":"y"}'])).toEqual({ Id: 5, x: 'y' });
    expect(actionArgument(['[1,2]'])).toEqual([1, 2]);
    expect(actionArgument(['5'])).toBe(5);
    expect(actionArgument(['example.com'])).toBe('example.com');
    expect(actionArgument(['a', '2'])).toEqual(['a', 2]);
    expect(actionArgument(['code=007'])).toEqual({ code: '007' });
  });
});

describe('cron HTTP request of a curl= task', () => {
  test('GET puts key=value arguments in the query', () => {
    const r = httpRequestOf({ kind: 'http', url: 'http://127.0.0.1:9/x?a=1', args: ['b=2', 'c=x y'] });
    expect(r).toEqual({ url: 'http://127.0.0.1:9/x?a=1&b=2&c=x+y', method: 'GET', headers: {} });
  });
  test('POST sends a form body, or one JSON argument as JSON', () => {
    expect(httpRequestOf({ kind: 'http', url: 'http://h/x', method: 'post', args: ['b=2', 'c=3'] })).toEqual({
      url: 'http://h/x', method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'b=2&c=3',
    });
    expect(httpRequestOf({ kind: 'http', url: 'http://h/x', method: 'POST', args: ['{"a":1}'] })).toEqual({
      url: 'http://h/x', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}',
    });
  });
  test.each([
    [{ kind: 'http', url: 'ftp://h/x' }, /http:\/\/ or https:\/\//],
    [{ kind: 'http', url: 'not a url' }, /is not a URL/],
    [{ kind: 'http', url: 'http://h', method: 'TRACE' }, /not one of GET/],
    [{ kind: 'http', url: 'http://h', args: ['{"a":1}'] }, /use method=POST/],
    [{ kind: 'http', url: 'http://h', method: 'POST', args: ['{bad'] }, /not valid JSON/],
    [{ kind: 'http', url: 'http://h', args: ['positional'] }, /not key=value/],
  ] as const)('refuses %j', (c, msg) => {
    expect(() => httpRequestOf(c as never)).toThrow(msg);
  });
});

describe('cron schedule fields', () => {
  test.each([
    ['second', '0'], ['second', '*/5'], ['second', '0,15,30,45'], ['minute', '10-20'], ['hour', '*'], ['day', 'L'],
    ['month', 'JAN-MAR'], ['week', 'MON-FRI'], ['week', '7'], ['week', '5#2'],
  ] as const)('accepts %s %j', (f, v) => {
    expect(cronFieldError(f, v)).toBeNull();
  });

  test.each([
    ['second', '60'], ['minute', '61'], ['hour', '24'], ['day', '0'], ['day', '32'], ['month', '13'], ['week', '8'],
    ['second', 'abc'], ['minute', '5/'], ['hour', '1 2'], ['second', ''], ['week', 'MON-'],
  ] as const)('refuses %s %j, naming the field', (f, v) => {
    const e = cronFieldError(f, v);
    expect(e).not.toBeNull();
    expect(e!.startsWith(f)).toBe(true);
  });

  test('the pattern is six fields, second first; next run is computed', () => {
    const t = { ...CRON_DEFAULTS, second: '*/10' };
    expect(cronPattern(t)).toBe('*/10 * * * * *');
    const from = new Date('2030-01-01T00:00:03Z');
    expect(nextRunOf(t, from)!.getTime()).toBe(new Date('2030-01-01T00:00:10Z').getTime());
    expect(nextRunOf({ ...CRON_DEFAULTS, day: '31', month: '2' })).toBeNull();
  });
});

describe('cron task validation (000 §5: Name and CMD required)', () => {
  const ok = { name: 'sync', cmd: 'path=srv/action|method=syncIptableRules', ...CRON_DEFAULTS };
  test('a good task passes', () => {
    expect(validateCronTask(ok)).toBeNull();
  });
  test('name and cmd required, with the spec wording', () => {
    expect(validateCronTask({ ...ok, name: ' ', cmd: '' })).toEqual({ name: 'Name is required', cmd: 'CMD is required' });
  });
  test('a bad field is named; an impossible date is refused', () => {
    expect(validateCronTask({ ...ok, hour: '25' })).toEqual({ hour: expect.stringMatching(/^hour '25' is not valid/) });
    expect(validateCronTask({ ...ok, day: '30', month: 'FEB' })).toEqual({ day: expect.stringMatching(/never runs/) });
  });
  test('a bad cmd is refused with the reason', () => {
    expect(validateCronTask({ ...ok, cmd: 'rm -rf /' })).toEqual({ cmd: expect.stringMatching(/^cmd: .*not key=value/) });
    expect(validateCronTask({ ...ok, cmd: 'curl=file:///etc/passwd' })).toEqual({ cmd: expect.stringMatching(/http:\/\//) });
  });
});

describe('cron input schemas', () => {
  test('save: numbers become text, suspended becomes 0/1', () => {
    expect(CronSaveArgs.parse({ name: 'a', cmd: 'curl=https://x/', second: 0, suspended: true })).toEqual({ name: 'a', cmd: 'curl=https://x/', second: '0', suspended: 1 });
    // A create names what it lacks (the schema is the whole contract: cron.getActions and a cron save read it).
    expect(CronSaveArgs.safeParse({ name: 'a' }).error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['cmd', 'CMD is required']]);
    expect(CronSaveArgs.safeParse({}).error?.issues.map((i) => i.path.join('.'))).toEqual(['name', 'cmd']);
    expect(CronSaveArgs.parse({ Id: '3', suspended: '0' })).toEqual({ Id: 3, suspended: 0 });
    expect(CronSaveArgs.safeParse({ suspended: 2 }).success).toBe(false);
    // What a form sends for a new task: no Id.
    for (const Id of ['', 0, '0']) expect(CronSaveArgs.parse({ Id, name: 'n', cmd: 'c' })).toEqual({ name: 'n', cmd: 'c' });
    // null, true, [5], '0x17', '1e1' are not an Id (strict input, test/unit/fields.spec.ts).
    for (const Id of [null, true, [5], '0x17', '1e1', {}]) expect(CronSaveArgs.safeParse({ Id, name: 'n' }).success).toBe(false);
    expect(CronSaveArgs.safeParse({ Id: -3 }).success).toBe(false);
    expect(CronGetArgs.parse({ Id: '' })).toEqual({});
    expect(CronGetArgs.parse({ Id: '4' })).toEqual({ Id: 4 });
    expect(CronGetArgs.parse(undefined)).toEqual({});
  });
  test('Id alone or {Id}; service as a value, {service} or {status}', () => {
    expect(CronIdArgs.parse(5)).toEqual({ Id: 5 });
    expect(CronIdArgs.parse({ Id: '7' })).toEqual({ Id: 7 });
    expect(CronIdArgs.safeParse({}).success).toBe(false);
    expect(CronServiceArgs.parse(0)).toEqual({ service: 0 });
    expect(CronServiceArgs.parse({ service: true })).toEqual({ service: 1 });
    expect(CronServiceArgs.parse({ status: 1 })).toEqual({ service: 1 });
  });
});
