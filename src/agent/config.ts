/**
 * The node agent's configuration (docs/agent.md): environment only, validated once; a bad value stops
 * the start with a message naming the variable.
 */
import { realpathSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';

export interface AgentConfig {
  port: number;
  host: string;
  /** The cluster key every request must carry in X-Cluster-Key. */
  key: string;
  /** The directories whose files may be listed, read and deleted: real paths, each with its label. */
  dirs: Array<{ label: string; path: string }>;
  /** The file 'Deploy configs' writes (null: deploy is not configured on this node). */
  configFile: string | null;
  /** Run after a deploy wrote the file (sh -c), or null. */
  reloadCmd: string | null;
  /** The hostname answered in every reply (AGENT_HOSTNAME, else the system's). */
  hostname: string;
}

export class AgentConfigError extends Error {}

const Env = z.object({
  AGENT_PORT: z.coerce.number().int().min(1).max(65535).default(3010),
  AGENT_HOST: z.string().min(1).default('0.0.0.0'),
  AGENT_CLUSTER_KEY: z.string({ error: 'is required' }).min(16, 'must be at least 16 characters'),
  AGENT_LOG_DIRS: z.string({ error: 'is required (comma-separated directories)' }).min(1, 'is required (comma-separated directories)'),
  AGENT_CONFIG_FILE: z.string().optional(),
  AGENT_RELOAD_CMD: z.string().optional(),
  AGENT_HOSTNAME: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$/, 'must be a host name').optional(),
});

export function loadAgentConfig(env: NodeJS.ProcessEnv = process.env): AgentConfig {
  const p = Env.safeParse(env);
  if (!p.success) throw new AgentConfigError(`Invalid agent configuration:\n${p.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  const e = p.data;
  const dirs: AgentConfig['dirs'] = [];
  for (const raw of e.AGENT_LOG_DIRS.split(',').map((s) => s.trim()).filter(Boolean)) {
    if (!isAbsolute(raw)) throw new AgentConfigError(`AGENT_LOG_DIRS: ${raw} is not an absolute path`);
    let real: string;
    try {
      real = realpathSync(raw);
      if (!statSync(real).isDirectory()) throw new Error('not a directory');
    } catch (err) {
      throw new AgentConfigError(`AGENT_LOG_DIRS: ${raw} is not a readable directory (${(err as Error).message})`);
    }
    if (real === '/') throw new AgentConfigError('AGENT_LOG_DIRS: / is not allowed');
    const label = basename(real);
    if (dirs.some((d) => d.label === label)) throw new AgentConfigError(`AGENT_LOG_DIRS: two directories are named ${label}; the last part of each path must differ`);
    dirs.push({ label, path: real });
  }
  if (!dirs.length) throw new AgentConfigError('AGENT_LOG_DIRS: no directory given');
  let configFile: string | null = null;
  if (e.AGENT_CONFIG_FILE) {
    if (!isAbsolute(e.AGENT_CONFIG_FILE)) throw new AgentConfigError('AGENT_CONFIG_FILE: must be an absolute path');
    configFile = resolve(e.AGENT_CONFIG_FILE);
    if (dirname(configFile) === configFile) throw new AgentConfigError('AGENT_CONFIG_FILE: must name a file');
  }
  return {
    port: e.AGENT_PORT,
    host: e.AGENT_HOST,
    key: e.AGENT_CLUSTER_KEY,
    dirs,
    configFile,
    reloadCmd: e.AGENT_RELOAD_CMD?.trim() || null,
    hostname: e.AGENT_HOSTNAME ?? hostname(),
  };
}
