/**
 * Node agents for tests and benches: the real agent (src/agent, the same code `npm run agent` runs)
 * started in-process on a loopback port, each with its own temporary log directories and config file.
 * Stand-ins for what a real agent never does (hold answers, answer without a hostname, a scripted
 * follow stream) are in test/helpers/fakes/agent.ts.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, type AgentHandle } from '../../src/agent/agent.js';
import { loadAgentConfig } from '../../src/agent/config.js';

export interface TestAgent extends AgentHandle {
  root: string;
  /** The first log directory (its label is `logs`). */
  logs: string;
  configFile: string;
  key: string;
  hostname: string;
}

/** `configDir: false` leaves the config file's directory missing (the deploy test fails on this node). */
export async function startTestAgent(o: { hostname: string; key: string; configDir?: boolean; reloadCmd?: string; extraDirs?: string[] }): Promise<TestAgent> {
  const root = mkdtempSync(join(tmpdir(), `agent-${o.hostname}-`));
  const logs = join(root, 'logs');
  mkdirSync(logs);
  const dirs = [logs];
  for (const d of o.extraDirs ?? []) {
    mkdirSync(join(root, d));
    dirs.push(join(root, d));
  }
  if (o.configDir !== false) mkdirSync(join(root, 'etc'));
  const configFile = join(root, 'etc', 'cluster.json');
  const cfg = loadAgentConfig({
    AGENT_PORT: '1', AGENT_HOST: '127.0.0.1', AGENT_CLUSTER_KEY: o.key, AGENT_LOG_DIRS: dirs.join(','),
    AGENT_CONFIG_FILE: configFile, AGENT_HOSTNAME: o.hostname, ...(o.reloadCmd ? { AGENT_RELOAD_CMD: o.reloadCmd } : {}),
  });
  // Any free port (AGENT_PORT itself must be 1-65535).
  const h = await startAgent({ ...cfg, port: 0 });
  return {
    ...h, root, logs, configFile, key: o.key, hostname: o.hostname,
    close: async () => { await h.close(); rmSync(root, { recursive: true, force: true }); },
  };
}
