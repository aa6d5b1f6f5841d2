/**
 * Ant mode (`npm run ant`, docs/ant.md "The reference ant"): a crawler worker of this application,
 * connecting to the console's hub with ANT_HUB_URL, ANT_TOKEN and ANT_NAME. No UI, no database.
 */
import { AntConfigError, loadAntConfig } from './config.js';
import { startAnt } from './ant.js';

function main() {
  let cfg;
  try {
    cfg = loadAntConfig();
  } catch (err) {
    if (err instanceof AntConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const ant = startAnt(cfg);
  ant.connected.catch((err: Error) => {
    process.stderr.write(`Ant refused by the hub: ${err.message}\n`);
    process.exit(3);
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      setTimeout(() => process.exit(1), 5_000).unref();
      void ant.close().then(() => process.exit(0));
    });
  }
}

main();
