/**
 * Entry point for `npm start` and `signoff …`: Slack when its tokens are set, the terminal
 * otherwise. Configuration errors are printed one per line and exit 2.
 */

import { runCommand, USAGE } from './cli/commands.js';
import { linesFrom } from './cli/lines.js';
import { createFeed } from './cli/printer.js';
import { loadConfig } from './config.js';
import { isSignoffError } from './errors.js';
import { createLogger } from './logger.js';
import { openSignoff, startSlack } from './main.js';

const out = { write: (s: string) => void process.stdout.write(s) };
const err = { write: (s: string) => void process.stderr.write(s) };

/** Runs until SIGINT or SIGTERM; the process exits from the signal handler. */
async function serveSlack(config: ReturnType<typeof loadConfig>): Promise<number> {
  const logger = createLogger(config.logLevel ?? 'info');
  const service = await startSlack(config, { logger });
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'stopping');
      void service.stop().finally(() => process.exit(code));
    });
  }
  return await new Promise<number>(() => undefined);
}

async function main(argv: string[]): Promise<number> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (!isSignoffError(error, 'config_invalid')) throw error;
    err.write(`signoff cannot start; fix the configuration:\n${error.message.replace(/^/gm, '  ')}\n`);
    return 2;
  }
  if (config.slack && argv.length === 0) return await serveSlack(config);
  if (argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    out.write(`${USAGE}\n`);
    return 0;
  }
  const logger = createLogger(config.logLevel ?? 'warn');
  const lines = linesFrom(process.stdin);
  let feed: ReturnType<typeof createFeed> | undefined;
  const app = await openSignoff(config, {
    logger,
    sinks: { cli: (...args) => (feed as NonNullable<typeof feed>).sink(...args) },
  });
  feed = createFeed({ events: app.engine.events, out });
  const stop = async () => {
    lines.close();
    await app.close();
  };
  // Stop the embedded server cleanly on Ctrl-C and on a container's SIGTERM alike.
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      err.write('\nStopping; tasks keep their state. See them with: signoff tasks\n');
      void stop().finally(() => process.exit(code));
    });
  }
  try {
    await app.engine.work('cli', config.queue.workers);
    return await runCommand(argv, app.engine, feed, { lines, out, err }, app.documents);
  } finally {
    await stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    err.write(`signoff stopped: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
