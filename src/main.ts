import 'reflect-metadata';
import { ConfigError, loadConfig } from '../config/config.js';
import { createApp } from './bootstrap.js';
import { JsonLogger } from './core/logger.js';

async function main() {
  let cfg;
  try {
    cfg = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = new JsonLogger(cfg.logLevel);
  const app = await createApp(cfg, logger);
  await app.listen(cfg.port, cfg.host);
  const db = cfg.database.type === 'mariadb' ? 'MySQL/MariaDB' : `SQLite ${cfg.database.database}`;
  // Graceful shutdown: stop accepting, let Nest close sockets, jobs and the database, then exit 0.
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      logger.log(`${signal} received, shutting down`, 'Main');
      setTimeout(() => process.exit(1), 10_000).unref();
      app.close().then(() => process.exit(0), (err) => { logger.error(String(err), 'Main'); process.exit(1); });
    });
  }
  logger.log(`Console listening on http://${cfg.host === '0.0.0.0' ? 'localhost' : cfg.host}:${cfg.port} (${db})`, 'Main');
}

main().catch((err) => {
  process.stderr.write(`Start failed: ${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
});
