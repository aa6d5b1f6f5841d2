/**
 * LiveChannels (issue 18, "Sessions"): a stream registers the role it needs; a send checks the socket's
 * role as it is now; `enforce` ends what the role no longer allows (once, with the reason), the end
 * event still goes out once; a disconnect ends every channel of the socket. And the registration is
 * the only way a stream reaches a socket: no area module, gateway or job emits to a socket or room
 * itself (they go through a LiveChannel, or RealtimeService's role-checked rooms).
 */
import { EventEmitter } from 'node:events';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'socket.io';
import { CHANNEL_ROLE_MESSAGE, LiveChannels, type ChannelEndReason } from '../../src/core/realtime/live-channels.js';

class FakeSocket extends EventEmitter {
  connected = true;
  id = 'sock-1';
  data: { actor: { uid: number; role: number } } = { actor: { uid: 1, role: 1 } };
  sent: Array<[string, unknown]> = [];
  override emit(event: string, ...args: unknown[]): boolean {
    if (event === 'disconnect') return super.emit(event, ...args);
    this.sent.push([event, args[0]]);
    return true;
  }
}

describe('LiveChannels', () => {
  test('sends while the role meets the channel, ends it once when the role no longer does, and the end event goes out once', () => {
    const reg = new LiveChannels();
    const s = new FakeSocket();
    const ends: ChannelEndReason[] = [];
    const ch = reg.open(s as unknown as Socket, { kind: 'terminal', minRole: 1, onEnd: (r) => ends.push(r) });
    expect(ch.emit('node_control.data', { key: 1, data: 'a' })).toBe(true);
    expect(reg.count('terminal')).toBe(1);

    s.data.actor.role = 100; // the actor refreshed by a check: sends stop even before enforce runs
    expect(ch.emit('node_control.data', { key: 1, data: 'b' })).toBe(false);
    reg.enforce(s as unknown as Socket, 100);
    reg.enforce(s as unknown as Socket, 100);
    expect(ends).toEqual(['role']);
    expect(ch.open).toBe(false);
    expect(reg.count()).toBe(0);
    ch.emitEnd('node_control.status', { key: 1, name: 'n', status: 'closed', message: CHANNEL_ROLE_MESSAGE, recording: null, cols: 80, rows: 24 });
    ch.emitEnd('node_control.status', { key: 1, name: 'n', status: 'closed', message: 'again', recording: null, cols: 80, rows: 24 });
    expect(s.sent.map(([e]) => e)).toEqual(['node_control.data', 'node_control.status']);
    expect(ch.emit('node_control.data', { key: 1, data: 'c' })).toBe(false);
  });

  test('one disconnect listener per socket, however often its channels close and open again (a screener re-subscribing on every filter)', () => {
    const reg = new LiveChannels();
    const s = new FakeSocket();
    for (let i = 0; i < 20; i++) reg.open(s as unknown as Socket, { kind: 'invest', minRole: 100, onEnd: () => {} }).end();
    expect(s.listenerCount('disconnect')).toBe(1);
    const ends: string[] = [];
    reg.open(s as unknown as Socket, { kind: 'invest', minRole: 100, onEnd: (r) => ends.push(r) });
    s.connected = false;
    s.emit('disconnect');
    expect(ends).toEqual(['disconnect']);
  });

  test('a channel of a weaker role survives a demotion that still meets it; a disconnect ends every channel', () => {
    const reg = new LiveChannels();
    const s = new FakeSocket();
    const ends: string[] = [];
    reg.open(s as unknown as Socket, { kind: 'admin-stream', minRole: 1, onEnd: (r) => ends.push(`admin:${r}`) });
    reg.open(s as unknown as Socket, { kind: 'content-stream', minRole: 10, onEnd: (r) => ends.push(`content:${r}`) });
    s.data.actor.role = 10;
    reg.enforce(s as unknown as Socket, 10);
    expect(ends).toEqual(['admin:role']);
    s.connected = false;
    s.emit('disconnect');
    expect(ends).toEqual(['admin:role', 'content:disconnect']);
    expect(reg.count()).toBe(0);
  });

  test('opening is refused for a role that does not meet the channel, and on a closed socket', () => {
    const reg = new LiveChannels();
    const s = new FakeSocket();
    s.data.actor.role = 10;
    expect(() => reg.open(s as unknown as Socket, { kind: 'terminal', minRole: 1, onEnd: () => undefined })).toThrow(/Forbidden/);
    s.data.actor.role = 1;
    s.connected = false;
    expect(() => reg.open(s as unknown as Socket, { kind: 'terminal', minRole: 1, onEnd: () => undefined })).toThrow(/closed/);
    expect(reg.count()).toBe(0);
  });
});

describe('the registration is the only way a stream reaches a socket', () => {
  const root = join(import.meta.dirname, '..', '..', 'src');
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
    });

  test('no area module, gateway or job emits to a socket, a room or the io server itself', () => {
    const offences: string[] = [];
    for (const dir of ['modules', 'gateways', 'jobs']) {
      for (const f of files(join(root, dir))) {
        readFileSync(f, 'utf8').split('\n').forEach((line, i) => {
          const code = line.replace(/\/\/.*$/, '');
          // allowed: this.realtime.emit*/emitToUser/emitNamed (role rooms), channel.emit*/ch.emit* (a LiveChannel), this.emit (a private wrapper of those)
          const bad = /\b(?!this\b|realtime\b|channel\b|ch\b)[\w$]+\)?\.emit\(/.test(code) || /\brealtime\.io\b/.test(code) || /\.(to|in)\([^)]*\)\.emit\(/.test(code);
          if (bad) offences.push(`${f.slice(root.length + 1)}:${i + 1}: ${line.trim()}`);
        });
      }
    }
    expect(offences).toEqual([]);
  });
});
