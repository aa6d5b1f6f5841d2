/**
 * The reference ant's configuration (docs/ant.md "The reference ant"): environment only, validated once;
 * a bad value stops the start with a message naming the variable.
 */
import { hostname } from 'node:os';
import { z } from 'zod';
import { ANT_DEFAULT_RATE_PER_HOST } from '../contracts/ant.js';

export interface AntConfig {
  /** The console's URL (the hub is its ANT_NAMESPACE namespace). */
  hubUrl: string;
  token: string;
  name: string;
  host: string;
  /** Requests a second per host (ANT_RATE_PER_HOST, default 1). */
  ratePerHost: number;
  /** User-Agent of every request, and the robots.txt group the ant obeys besides '*'. */
  userAgent: string;
  /** Always tunnel through the proxy with CONNECT, also for http:// (ANT_PROXY_TUNNEL=1). */
  proxyTunnel: boolean;
  /** Per-request time-out (ms). */
  timeoutMs: number;
  /** Lines kept per log stream for get_log. */
  logLines: number;
  /** Echo the log to stdout/stderr (false in tests). */
  echo: boolean;
}

export class AntConfigError extends Error {}

const Env = z.object({
  ANT_HUB_URL: z.string({ error: 'is required' }).regex(/^https?:\/\/[^\s]+$/, 'must be an http(s) URL'),
  ANT_TOKEN: z.string({ error: 'is required' }).min(10, 'is required'),
  ANT_NAME: z.string().trim().min(1).max(64).optional(),
  ANT_RATE_PER_HOST: z.coerce.number().positive().max(1000).default(ANT_DEFAULT_RATE_PER_HOST),
  ANT_USER_AGENT: z.string().min(1).max(200).default('AntBot/1.0 (+console reference ant)'),
  ANT_PROXY_TUNNEL: z.enum(['0', '1']).default('0'),
  ANT_TIMEOUT_MS: z.coerce.number().int().min(1000).max(300_000).default(20_000),
});

export function loadAntConfig(env: NodeJS.ProcessEnv = process.env): AntConfig {
  const p = Env.safeParse(env);
  if (!p.success) throw new AntConfigError(`Invalid ant configuration:\n${p.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  const e = p.data;
  return {
    hubUrl: e.ANT_HUB_URL.replace(/\/+$/, ''),
    token: e.ANT_TOKEN,
    name: e.ANT_NAME ?? hostname(),
    host: hostname(),
    ratePerHost: e.ANT_RATE_PER_HOST,
    userAgent: e.ANT_USER_AGENT,
    proxyTunnel: e.ANT_PROXY_TUNNEL === '1',
    timeoutMs: e.ANT_TIMEOUT_MS,
    logLines: 5000,
    echo: true,
  };
}
