/**
 * Node agents for tests and benches: the real agent (src/agent, the same code `npm run agent` runs)
 * started in-process on a loopback port, each with its own temporary log directories and config file.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
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

/**
 * A node whose agent holds every answer until `release()` (then answers `res` as `hostname` at once):
 * for showing that other nodes' results arrive while one is still out. Not the real agent: it stands
 * for a slow node only.
 */
export async function startHeldAgent(hostname: string, res: unknown): Promise<{ url: string; release: () => void; close: () => Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  const server = createServer((req, out) => {
    req.resume();
    void held.then(() => {
      out.setHeader('content-type', 'application/json');
      out.end(JSON.stringify({ host: hostname, r: { res } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    release,
    close: async () => { release(); server.closeAllConnections(); await new Promise((r) => server.close(r)); },
  };
}
