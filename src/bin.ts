/**
 * Entry point for `npm start` and `signoff …`: Slack when its tokens are set, the terminal
 * otherwise. `--version`, help, and a command whose words are wrong, answer before anything else is
 * loaded or started (the rest is imported only when needed); configuration errors are printed one
 * per line and exit 2; a failure to start says what failed (cli/start-failure.ts).
 */

import { configuredWorkflows, helpText, USAGE } from './cli/help.js';
import { optionsPart } from './cli/options.js';
import type { ScenarioTest } from './cli/scenario-run.js';
import { startFailureInWords } from './cli/start-failure.js';
import { usageError } from './cli/usage.js';
import { packageVersion } from './cli/version.js';
import { type Config, loadConfig } from './config/config.js';
import { isSignoffError } from './errors.js';
import type { Logger } from './logger.js';
import { onStopSignals } from './stop-signals.js';

/**
 * A reader that stops early (`signoff audit | head -1`) closes stdout: nothing more is written
 * and the command ends quietly with exit 0, like the end of its input. Not 141 (a shell's code for
 * a process killed by SIGPIPE): the reader took what it wanted and nothing failed, and under
 * `set -o pipefail` a 141 would fail every pipeline that reads only the first lines.
 */
let outputClosed: () => void = () => process.exit(0);
let outputOpen = true;
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  // Writes after the first failure fail too (the stream is destroyed): the first one said it.
  if (!outputOpen) return;
  if (error.code !== 'EPIPE') throw error;
  outputOpen = false;
  outputClosed();
});
// A closed stderr (`2>&1 | head`) loses the lines it would show, but never crashes a command.
process.stderr.on('error', () => undefined);
const out = { write: (s: string) => void (outputOpen && process.stdout.write(s)) };
const err = { write: (s: string) => void process.stderr.write(s) };
/**
 * Said when PORT is set and `npm start` opens the terminal: what serves HTTP (the API, /mcp,
 * /healthz, /metrics) is a process connected to Slack, in HTTP mode or Socket Mode; `signoff mcp`
 * on stdio needs Slack too, so there is no other door to point to.
 */
const NO_HTTP =
  'PORT is set, but without Slack tokens npm start is the terminal, which serves no HTTP (no /healthz, /api/v1, /mcp or /metrics): those are served by signoff connected to Slack, so set SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode).';
/** The configuration the process started with, for the words of a failure to start. */
let started: Config | undefined;

/** Runs until SIGINT or SIGTERM; the process exits from the signal handler. */
async function serveSlack(config: Config): Promise<number> {
  const [{ createLogger }, { startSlack }] = await Promise.all([import('./logger.js'), import('./main.js')]);
  const logger = createLogger(config.logLevel ?? 'info');
  // Heard from the first moment: a signal while the server starts (waiting for Slack, say) ends
  // the start, which closes what it opened, rather than killing it halfway (Node's default for an
  // unheard signal) or waiting for a Slack that may never answer.
  const stopping = new AbortController();
  const starting = startSlack(config, { logger, stopping: stopping.signal });
  stopOnSignals(logger, async () => {
    stopping.abort();
    const service = await starting.catch(() => undefined);
    await service?.stop();
  });
  try {
    await starting;
  } catch (error) {
    // Given up for the stop: the signal's handler says so and exits. Any other failure, even one
    // after a signal (a token Slack refused, a migration), is said as a failure to start.
    const aborted = error === stopping.signal.reason || (error as Error)?.name === 'AbortError';
    if (!stopping.signal.aborted || !aborted) throw error;
  }
  return await new Promise<number>(() => undefined);
}

/**
 * On SIGINT or SIGTERM a server stops, then exits with the signal's code. It says so twice: as it
 * begins, and once it has stopped (its runs handed back, its database closed), with how long that
 * took: an operator waiting on a deploy knows it is over, and what took the time.
 */
function stopOnSignals(logger: Logger, stop: () => Promise<void>): void {
  onStopSignals((code, signal) => {
    const began = Date.now();
    logger.info({ signal }, 'stopping');
    void stop()
      .then(
        () => {
          const ms = Date.now() - began;
          const took = ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
          logger.info({ signal, ms }, `stopped after ${took}: runs handed back, database closed`);
        },
        (err: unknown) =>
          logger.error({ err, signal, ms: Date.now() - began }, 'stopping failed; exiting anyway'),
      )
      // The last line written before the exit, not left in the logger's buffer.
      .finally(() => logger.flush(() => process.exit(code)));
  });
}

/**
 * `signoff mcp`: the MCP server on stdin and stdout, until its client closes stdin (or a signal).
 * Nothing else may write to stdout: the log goes to stderr, as a server's does.
 */
async function serveMcp(config: Config, argv: string[]): Promise<number> {
  // Slack first: the missing variable is what to fix before any client is named.
  if (config.slackMissing) return halfSlack(config.slackMissing);
  const { readMcpArgs } = await import('./cli/mcp-args.js');
  const read = readMcpArgs(argv, config.workflows.api, config.configPath);
  if ('error' in read) {
    err.write(`${read.error}\n`);
    return 2;
  }
  if (!config.slack) {
    err.write(
      'signoff mcp asks in Slack: set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN), as for npm start.\n',
    );
    return 2;
  }
  await announceFirstStart(config);
  const [{ createLogger }, { startMcp }] = await Promise.all([import('./logger.js'), import('./main.js')]);
  const logger = createLogger(config.logLevel ?? 'info');
  const starting = startMcp(config, {
    logger,
    client: read.client,
    io: { stdin: process.stdin, stdout: process.stdout },
  });
  // As a server's: a signal while it starts stops it once started.
  stopOnSignals(logger, () => starting.then((mcp) => mcp.stop()));
  const mcp = await starting;
  logger.info({ client: read.client.name }, 'signoff mcp is serving on stdio');
  // Closed by a signal's stop: its handler says so and exits, with the signal's code.
  if ((await mcp.closed) === 'stopped') return await new Promise<number>(() => undefined);
  const began = Date.now();
  await mcp.stop();
  // Said as a signal's stop is: the client ended it, and nothing is left running.
  logger.info(
    { client: read.client.name, ms: Date.now() - began },
    'the MCP client closed stdin: stopped, runs handed back, database closed',
  );
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  return 0;
}

/**
 * The embedded server's first start makes its data folder (initdb): that long a blank screen
 * worries. The folder is made first, so that one that cannot be made is said instead of that line.
 */
async function announceFirstStart(config: Config): Promise<void> {
  if (config.database.url) return;
  const [{ isFirstStart }, { makeFolder }] = await Promise.all([
    import('./db/embedded.js'),
    import('./db/data-dir.js'),
  ]);
  makeFolder(config.database.dataDir);
  if (isFirstStart(config.database.dataDir)) {
    err.write(`Starting the embedded PostgreSQL in ${config.database.dataDir} (first run: ~10 s)…\n`);
  }
}

/**
 * What needs Slack (a server, `signoff mcp`) with some of its variables set and one missing: refused
 * as a configuration error, naming the variable. Commands that need no Slack run meanwhile.
 */
function halfSlack(missing: string): number {
  err.write(`signoff cannot start; fix the configuration:\n  ${missing}\n`);
  return 2;
}

async function main(argv: string[]): Promise<number> {
  // Before the configuration is read: the version is the package's, whatever the settings.
  if (argv[0] === '--version' || argv[0] === '-v') {
    out.write(`${packageVersion()}\n`);
    return 0;
  }
  // `--help` after a command too ("run pair --help"): asked for help, never a task named "--help"
  // (which `run pair -- --help` starts: after `--`, words are the task's). Only where options can
  // be (options.ts): `run pair explain the -h flag` is a task.
  const options = optionsPart(argv);
  const help = argv[0] === 'help' || options.includes('--help') || options.includes('-h');
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
  const workflows = configuredWorkflows(config.workflows);
  if (help) {
    out.write(helpText(workflows));
    return 0;
  }
  if (argv[0] === 'mcp') return await serveMcp(config, argv.slice(1));
  // A command's words alone can be wrong: said before the database starts (initdb takes ~10 s).
  const usage = usageError(
    argv,
    workflows.map((w) => w.name),
  );
  if (usage) {
    err.write(`${usage}\n`);
    return 2;
  }
  if (config.slack && argv.length === 0) {
    await announceFirstStart(config);
    return await serveSlack(config);
  }
  // A half-configured Slack is meant for a server: refused here, never the terminal in its place.
  if (argv.length === 0 && config.slackMissing) return halfSlack(config.slackMissing);
  // A web or worker process asked for without Slack (a deployment's .env missing its tokens):
  // opening the terminal there would serve nobody and look like a start.
  if (argv.length === 0 && config.role !== 'all') {
    err.write(
      `SIGNOFF_ROLE=${config.role} runs a part of signoff in Slack, and no Slack is set: set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN), or unset SIGNOFF_ROLE to use signoff in this terminal.\n`,
    );
    return 2;
  }
  // A port set for the server this is not: nothing will listen on it, and nothing else would say so.
  if (argv.length === 0 && config.portSet) err.write(`${NO_HTTP}\n`);
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
  // Ctrl-C while the modules load (a second or two): nothing has started yet; said, not a mute exit.
  const loading = () => {
    err.write('\nStopped before anything started.\n');
    process.exit(130);
  };
  process.once('SIGINT', loading);
  let loaded: [typeof import('./cli/terminal.js'), typeof import('./main.js')];
  try {
    await announceFirstStart(config);
    loaded = await Promise.all([import('./cli/terminal.js'), import('./main.js')]);
  } finally {
    // From here the terminal handles the signals (cli/terminal.ts).
    process.off('SIGINT', loading);
  }
  const [{ runTerminal }, { startTerminal }] = loaded;
  return await runTerminal(
    argv,
    config,
    { out, err, tty: process.stdout.isTTY === true },
    test,
    (end) => {
      outputClosed = () => end(0);
    },
    startTerminal,
  );
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    const words = started && startFailureInWords(error, started.database);
    err.write(`signoff stopped: ${words ?? (error instanceof Error ? error.message : String(error))}\n`);
    process.exit(1);
  },
);
