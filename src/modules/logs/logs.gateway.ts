import { Logger } from '@nestjs/common';
import { ConnectedSocket, MessageBody, SubscribeMessage, WebSocketGateway, type OnGatewayDisconnect } from '@nestjs/websockets';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'socket.io';
import type { Envelope } from '../../contracts/envelope.js';
import { FollowArgs, type LogFollowEndEvent, type LogLinesEvent } from '../../contracts/logs.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import { parseInput, socketAnswer, toFailure, tooMany, upstream } from '../../core/errors.js';
import { CHANNEL_ROLE_MESSAGE, LiveChannels } from '../../core/realtime/live-channels.js';
import { z } from 'zod';
import { LogsService } from './logs.service.js';

/** A socket follows at most this many files at once. */
const MAX_FOLLOWS_PER_SOCKET = 4;
const UnfollowArgs = z.object({ fid: z.string().max(64) });

/**
 * Following a node's log live (issue 12, beyond the spec), admins only: `logs.follow {Id, name}` opens
 * the agent's follow stream and acknowledges `{status: 'ok', result: {fid}}`; appended lines arrive on
 * this socket only as `logs.lines {fid, Id, name, lines}`, the end as `logs.follow_end`. `logs.unfollow
 * {fid}`, closing the panel or the socket going away stops the agent stream.
 */
@WebSocketGateway()
@RequireRole(Role.admin)
export class LogsGateway implements OnGatewayDisconnect {
  private readonly log = new Logger('LogsGateway');
  private readonly follows = new Map<string, Map<string, AbortController>>();

  constructor(private readonly logs: LogsService, private readonly channels: LiveChannels) {}

  @SubscribeMessage('logs.follow')
  follow(@ConnectedSocket() c: Socket, @MessageBody() body: unknown): Promise<Envelope> {
    return socketAnswer(() => this.start(c, parseInput(FollowArgs, body ?? {})), this.log);
  }

  @SubscribeMessage('logs.unfollow')
  unfollow(@ConnectedSocket() c: Socket, @MessageBody() body: unknown): Promise<Envelope> {
    return socketAnswer(() => {
      const { fid } = parseInput(UnfollowArgs, body ?? {});
      const mine = this.follows.get(c.id);
      const ac = mine?.get(fid);
      ac?.abort();
      mine?.delete(fid); // the slot is free at once (the relay ends on its own)
      return { stopped: !!ac };
    }, this.log);
  }

  /**
   * Opens the follow; answers once the agent's first event (`open`, after the hostname check) arrived,
   * then relays in the background through a live channel (LiveChannels): a role change that no longer
   * allows it, a disconnect or `logs.unfollow` aborts the agent stream and sends `logs.follow_end`.
   */
  private async start(c: Socket, args: z.output<typeof FollowArgs>): Promise<{ fid: string }> {
    const mine = this.follows.get(c.id) ?? new Map<string, AbortController>();
    if (mine.size >= MAX_FOLLOWS_PER_SOCKET) throw tooMany(`At most ${MAX_FOLLOWS_PER_SOCKET} files are followed at once`);
    const fid = randomUUID();
    const ac = new AbortController();
    const end: LogFollowEndEvent = { fid, Id: args.Id, name: args.name };
    const channel = this.channels.open(c, {
      kind: 'logs.follow', minRole: Role.admin,
      onEnd: (why) => {
        if (why === 'role') end.error = CHANNEL_ROLE_MESSAGE;
        ac.abort();
      },
    });
    this.follows.set(c.id, mine);
    mine.set(fid, ac);
    const forget = () => {
      ac.abort();
      mine.delete(fid);
      if (!mine.size && this.follows.get(c.id) === mine) this.follows.delete(c.id);
    };
    const it = this.logs.follow(args, ac.signal);
    let first: IteratorResult<unknown>;
    try {
      first = await it.next();
    } catch (err) {
      forget();
      channel.end();
      throw err;
    }
    if (first.done || !channel.open) {
      forget();
      channel.end();
      throw upstream('The follow stream ended');
    }
    void (async () => {
      try {
        for await (const ev of it) {
          if (ev.event === 'lines') {
            const lines = ((ev.data as { lines?: unknown }).lines);
            if (Array.isArray(lines)) channel.emit('logs.lines', { fid, Id: args.Id, name: args.name, lines: lines.filter((l): l is string => typeof l === 'string') } satisfies LogLinesEvent);
          } else if (ev.event === 'truncated' || ev.event === 'rotated') {
            channel.emit('logs.lines', { fid, Id: args.Id, name: args.name, lines: [], truncated: true } satisfies LogLinesEvent);
          } else if (ev.event === 'end') {
            end.error = String((ev.data as { error?: unknown }).error ?? 'ended');
            break;
          }
        }
      } catch (err) {
        if (!ac.signal.aborted) end.error = toFailure(err).envelope.message;
      } finally {
        forget();
        channel.emitEnd('logs.follow_end', end);
        channel.end();
      }
    })();
    return { fid };
  }

  handleDisconnect(c: Socket) {
    for (const ac of this.follows.get(c.id)?.values() ?? []) ac.abort();
    this.follows.delete(c.id);
  }

  /** Open follows (tests and the bench read it). */
  get activeCount(): number {
    let n = 0;
    for (const m of this.follows.values()) n += m.size;
    return n;
  }
}
