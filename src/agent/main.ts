/**
 * Agent mode (`npm run agent`, docs/agent.md): this application's node agent, serving only `/sync/...`
 * on AGENT_PORT. No UI, no sessions, no database: the console process (src/main.ts) is not involved.
 */
import { AgentConfigError, loadAgentConfig } from './config.js';
import { startAgent } from './agent.js';

async function main() {
  let cfg;
  try {
    cfg = loadAgentConfig();
  } catch (err) {
    if (err instanceof AgentConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const agent = await startAgent(cfg);
  const line = (msg: string) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), context: 'Agent', msg })}\n`);
  line(`Node agent ${cfg.hostname} listening on ${cfg.host}:${(agent.server.address() as { port: number }).port}; directories ${cfg.dirs.map((d) => d.path).join(', ')}; config file ${cfg.configFile ?? '(none)'}`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      setTimeout(() => process.exit(1), 5_000).unref();
      void agent.close().then(() => process.exit(0));
    });
  }
}

main().catch((err) => {
  process.stderr.write(`Agent start failed: ${(err as Error)?.message ?? err}\n`);
  process.exit(1);
});
