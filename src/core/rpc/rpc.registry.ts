import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { Envelope } from '../../contracts/envelope.js';
import { MSG } from '../../contracts/messages.js';
import { roleAllows } from '../../contracts/roles.js';
import { inAuditScope, type AuditScope } from '../audit/audit-target.js';
import { AuditService } from '../audit/audit.service.js';
import { AppError, forbidden, parseInput, toFailure } from '../errors.js';
import { RPC_META, type RpcContext, type RpcOptions } from './rpc.decorator.js';

export interface RpcMethod extends RpcOptions {
  name: string;
  /** The canonical name when this entry is an alias. */
  aliasOf?: string;
  handler: (args: unknown, ctx: RpcContext) => unknown;
}

/** The one registry of RPC methods: filled from @Rpc decorators at start, used by the API, cron and docs. */
@Injectable()
export class RpcRegistry implements OnModuleInit {
  private readonly log = new Logger('Rpc');
  private readonly methods = new Map<string, RpcMethod>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly audit: AuditService,
  ) {}

  onModuleInit() {
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      const proto = Object.getPrototypeOf(instance);
      for (const key of this.scanner.getAllMethodNames(proto)) {
        const fn = instance[key] as ((...a: unknown[]) => unknown) | undefined;
        const meta = fn && (Reflect.getMetadata(RPC_META, fn) as (RpcOptions & { name: string }) | undefined);
        if (!meta) continue;
        const handler = fn.bind(instance) as RpcMethod['handler'];
        this.add({ ...meta, handler });
        for (const alias of meta.aliases ?? []) this.add({ ...meta, name: alias, aliasOf: meta.name, handler });
      }
    }
    this.log.log(`${this.methods.size} RPC methods registered`);
  }

  private add(m: RpcMethod) {
    if (this.methods.has(m.name)) throw new Error(`RPC method ${m.name} is registered twice`);
    this.methods.set(m.name, m);
  }

  get(name: string): RpcMethod | undefined {
    return this.methods.get(name);
  }

  list(): RpcMethod[] {
    return [...this.methods.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Runs one method for an actor: role check, input validation, the handler, and an audit entry
   * for state-changing methods. Throws AppError; `call` turns the outcome into an envelope.
   */
  async invoke(name: string, rawArgs: unknown, ctx: RpcContext): Promise<unknown> {
    const m = this.methods.get(name);
    if (!m) throw new AppError(404, `Unknown method: ${name}`, 'error');
    if (!roleAllows(ctx.actor.role, m.role)) throw forbidden(`${MSG.forbidden} (${name})`);
    const started = Date.now();
    // The handler may name the object it acts on (auditTarget in audit-target.ts); the entry records it.
    const scope: AuditScope = { target: null };
    try {
      const args = m.input ? parseInput(m.input, rawArgs ?? {}) : rawArgs;
      const result = await inAuditScope(scope, () => m.handler(args, ctx));
      if (m.write) await this.audit.record({ actor: ctx.actor, method: name, args: rawArgs, target: scope.target, outcome: 'ok', started });
      return result;
    } catch (err) {
      if (m.write) await this.audit.record({ actor: ctx.actor, method: name, args: rawArgs, target: scope.target, outcome: 'error', message: toFailure(err).envelope.message, started });
      throw err;
    }
  }

  /** `invoke` that never throws: one method's failure is its own envelope (000 §7). */
  async call(name: string, rawArgs: unknown, ctx: RpcContext, onUnexpected?: (err: unknown) => void): Promise<Envelope> {
    try {
      return { status: 'ok', result: (await this.invoke(name, rawArgs, ctx)) ?? null };
    } catch (err) {
      const f = toFailure(err);
      if (f.unexpected) onUnexpected?.(err);
      return f.envelope;
    }
  }
}
