/**
 * Entry point for `npm start` and `signoff …`: Slack when its tokens are set, the terminal
 * otherwise. Help answers before anything else is loaded or started (the rest is imported only
 * when needed); configuration errors are printed one per line and exit 2; a failure to start
 * says what failed (cli/start-failure.ts).
 */

import { relative } from 'node:path';
import { configuredWorkflows, helpText, USAGE } from './cli/help.js';
import type { createFeed } from './cli/printer.js';
import type { ScenarioTest } from './cli/scenario-run.js';
import { startFailureInWords } from './cli/start-failure.js';
import { type Config, loadConfig } from './config.js';
import { isSignoffError } from './errors.js';

const out = { write: (s: string) => void process.stdout.write(s) };
const err = { write: (s: string) => void process.stderr.write(s) };
/** The configuration the process started with, for the words of a failure to start. */
let started: Config | undefined;

/** Runs until SIGINT or SIGTERM; the process exits from the signal handler. */
async function serveSlack(config: Config): Promise<number> {
  const [{ createLogger }, { startSlack }] = await Promise.all([import('./logger.js'), import('./main.js')]);
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
function keptIn(config: Config): string {
  if (config.database.url) return 'the database (DATABASE_URL)';
  const folder = relative(process.cwd(), config.database.dataDir);
  return `${folder && !folder.startsWith('..') ? folder : config.database.dataDir}/`;
}

/** The embedded server's first start makes its data folder (initdb): that long a blank screen worries. */
async function announceFirstStart(config: Config): Promise<void> {
  if (config.database.url) return;
  const { isFirstStart } = await import('./db/embedded.js');
  if (isFirstStart(config.database.dataDir)) {
    err.write(`Starting the embedded PostgreSQL in ${config.database.dataDir} (first run: ~10 s)…\n`);
  }
}

async function main(argv: string[]): Promise<number> {
  const help = argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h';
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!isSignoffError(error, 'config_invalid')) throw error;
    if (help) out.write(`${USAGE}\n\n`);
    err.write(`signoff cannot start; fix the configuration:\n${error.message.replace(/^/gm, '  ')}\n`);
    return 2;
  }
  started = config;
  if (help) {
    out.write(helpText(configuredWorkflows(config.workflows)));
    return 0;
  }
  if (config.slack && argv.length === 0) {
    await announceFirstStart(config);
    return await serveSlack(config);
  }
  let test: ScenarioTest | undefined;
  if (argv[0] === 'test') {
    const { readScenarioTest } = await import('./cli/scenario-run.js');
    const read = readScenarioTest(argv.slice(1));
    if ('error' in read) {
      err.write(`${read.error}\n`);
      return 2;
    }
    test = read;
  }
  await announceFirstStart(config);
  const [{ runCommand, terminalActor }, { linesFrom }, printer, markdown, { openSignoff }, scenarios] =
    await Promise.all([
      import('./cli/commands.js'),
      import('./cli/lines.js'),
      import('./cli/printer.js'),
      import('./cli/markdown.js'),
      import('./main.js'),
      import('./cli/scenario-run.js'),
    ]);
  const [{ createLogger }, { createModelFor }, { createThinking }, { statusLine }] = await Promise.all([
    import('./logger.js'),
    import('./llm/models.js'),
    import('./cli/thinking.js'),
    import('./cli/status-line.js'),
  ]);
  const logger = createLogger(config.logLevel ?? 'warn');
  // At a terminal, what was typed before a question was shown never answers it; piped input is
  // a script of answers written ahead, read as it comes.
  const lines = linesFrom(process.stdin, { typedAhead: process.stdin.isTTY ? 'drop' : 'keep' });
  const tty = process.stdout.isTTY === true;
  const thinking = createThinking();
  // A scenario runs in a database of its own, made for the run and dropped after it.
  const scratch = test ? await scenarios.scenarioDatabase(config, logger) : undefined;
  if (scratch) config = { ...config, database: { ...config.database, url: scratch.url } };
  let feed: ReturnType<typeof createFeed> | undefined;
  const app = await openSignoff(config, {
    logger,
    sinks: { cli: (...args) => (feed as NonNullable<typeof feed>).sink(...args) },
    // A scenario runs on the offline model, its agents answering what the file says.
    modelFor: test
      ? scenarios.scenarioModels(test.scenario)
      : createModelFor(config.model, { callbacks: thinking.callbacks }),
  }).catch(async (error) => {
    await scratch?.drop();
    throw error;
  });
  const printed: string[] = [];
  const screen = statusLine(out, tty);
  // What the terminal shows, kept too: a scenario's expectations read it.
  const shown = {
    write: (text: string) => {
      if (test) printed.push(text);
      screen.write(text);
    },
    status: screen.status,
  };
  feed = printer.createFeed({
    events: app.engine.events,
    out: shown,
    show: { style: tty ? markdown.ANSI_STYLE : markdown.PLAIN_STYLE, now: () => new Date() },
    thinking: thinking.of,
  });
  // Once, whichever comes first: the end of the command or a signal (both used to close the pools).
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      lines.close();
      await app.close();
      await scratch?.drop();
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
      const run = {
        engine: app.engine,
        feed,
        out: shown,
        actor: terminalActor(),
        transcript: () => printed.join(''),
      };
      return await scenarios.runScenarioTest(run, test, app.parts, err);
    }
    return await runCommand(argv, app.engine, feed, { lines, out: shown, err }, app.documents);
  } finally {
    await stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    const words = started && startFailureInWords(error, started.database);
    err.write(`signoff stopped: ${words ?? (error instanceof Error ? error.message : String(error))}\n`);
    process.exit(1);
  },
);
