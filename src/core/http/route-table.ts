import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { GATEWAY_METADATA, MESSAGE_MAPPING_METADATA, MESSAGE_METADATA } from '@nestjs/websockets/constants.js';
import { IS_PUBLIC, REQUIRED_ROLE } from '../auth/actor.js';

export interface RouteInfo {
  method: string;
  path: string;
  /** Weakest role allowed; undefined = any signed-in user. */
  role?: number;
  public: boolean;
}
export interface SocketMessageInfo {
  message: string;
  gateway: string;
  role?: number;
}

const join = (...parts: string[]) => '/' + parts.flatMap((p) => p.split('/')).filter(Boolean).join('/');
const meta = <T>(key: string, ...targets: object[]): T | undefined => {
  for (const t of targets) {
    const v = Reflect.getMetadata(key, t) as T | undefined;
    if (v !== undefined) return v;
  }
  return undefined;
};

/**
 * Every REST route and socket message the app serves, with the role each needs, read from the
 * same decorators the guard reads. The role-matrix test and docs/api.md are built from this.
 */
export function listRoutes(discovery: DiscoveryService, scanner: MetadataScanner): RouteInfo[] {
  const out: RouteInfo[] = [];
  for (const c of discovery.getControllers()) {
    const type = c.metatype as (new () => object) | undefined;
    if (!type || !c.instance) continue;
    const base = (Reflect.getMetadata(PATH_METADATA, type) as string | undefined) ?? '';
    const proto = Object.getPrototypeOf(c.instance) as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(proto)) {
      const fn = proto[name] as object;
      const sub = Reflect.getMetadata(PATH_METADATA, fn) as string | string[] | undefined;
      if (sub === undefined) continue;
      const verb = RequestMethod[Reflect.getMetadata(METHOD_METADATA, fn) as number];
      const path = join(base, Array.isArray(sub) ? sub[0] : sub);
      out.push({
        method: verb,
        path: path.startsWith('/sync') ? path : join('api', path),
        role: meta<number>(REQUIRED_ROLE, fn, type),
        public: meta<boolean>(IS_PUBLIC, fn, type) === true,
      });
    }
  }
  return out.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

export function listSocketMessages(discovery: DiscoveryService, scanner: MetadataScanner): SocketMessageInfo[] {
  const out: SocketMessageInfo[] = [];
  for (const p of discovery.getProviders()) {
    const type = p.metatype as (new () => object) | undefined;
    if (!type || !p.instance || !Reflect.getMetadata(GATEWAY_METADATA, type)) continue;
    const proto = Object.getPrototypeOf(p.instance) as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(proto)) {
      const fn = proto[name] as object;
      if (!Reflect.getMetadata(MESSAGE_MAPPING_METADATA, fn)) continue;
      out.push({ message: Reflect.getMetadata(MESSAGE_METADATA, fn) as string, gateway: type.name, role: meta<number>(REQUIRED_ROLE, fn, type) });
    }
  }
  return out.sort((a, b) => a.message.localeCompare(b.message));
}
