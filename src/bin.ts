/**
 * Entry point for `npm start` and `signoff …`: Slack when its tokens are set, the terminal
 * otherwise. Configuration errors are printed one per line and exit 2.
 */

import { basename, relative } from 'node:path';
import { runCommand, terminalActor, USAGE } from './cli/commands.js';
import { linesFrom } from './cli/lines.js';
import { createFeed } from './cli/printer.js';
import { readScenario, type Scenario, scenarioModels } from './cli/scenario.js';
import { runScenario } from './cli/scenario-run.js';
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

/** Where tasks and reviews are kept, as a person would name it: the data folder, or the database. */
function keptIn(config: ReturnType<typeof loadConfig>): string {
  if (config.database.url) return 'the database (DATABASE_URL)';
  const folder = relative(process.cwd(), config.database.dataDir);
  return `${folder && !folder.startsWith('..') ? folder : config.database.dataDir}/`;
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
  let test: { workflow: string; scenario: Scenario; file: string } | undefined;
  if (argv[0] === 'test') {
    const [, workflow, flag, file] = argv;
    if (!workflow || flag !== '--scenario' || !file) {
      err.write('usage: signoff test <workflow> --scenario <file.yml>\n');
      return 2;
    }
    try {
      test = { workflow, scenario: readScenario(file), file };
    } catch (error) {
      if (!isSignoffError(error, 'config_invalid')) throw error;
      err.write(`${error.message}\n`);
      return 2;
    }
  }
  const logger = createLogger(config.logLevel ?? 'warn');
  const lines = linesFrom(process.stdin);
  let feed: ReturnType<typeof createFeed> | undefined;
  const app = await openSignoff(config, {
    logger,
    sinks: { cli: (...args) => (feed as NonNullable<typeof feed>).sink(...args) },
    // A scenario runs on the offline model, its agents answering what the file says.
    modelFor: test ? scenarioModels(test.scenario) : undefined,
  });
  const printed: string[] = [];
  // What the terminal shows, kept too: a scenario's expectations read it.
  const shown = {
    write: (text: string) => {
      printed.push(text);
      out.write(text);
    },
  };
  feed = createFeed({ events: app.engine.events, out: shown });
  // Once, whichever comes first: the end of the command or a signal (both used to close the pools).
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      lines.close();
      await app.close();
    })());
  // Ctrl-C (or a container's SIGTERM) stops quietly: connections close before the embedded
  // server stops, and one line says what is kept. A second Ctrl-C does not wait.
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.on(signal, () => {
      if (stopped) process.exit(code);
      void stop().finally(() => {
        err.write(
          `\nStopped. Tasks and reviews are kept in ${keptIn(config)}; \`npx signoff tasks\` lists them.\n`,
        );
        process.exit(code);
      });
    });
  }
  try {
    await app.engine.work('cli', config.queue.workers);
    if (test) {
      const name = test.scenario.name ?? basename(test.file);
      const run = {
        engine: app.engine,
        feed,
        out: shown,
        actor: terminalActor(),
        transcript: () => printed.join(''),
      };
      return await runScenario(run, test.workflow, test.scenario, name);
    }
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
