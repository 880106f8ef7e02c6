/**
 * A command in the terminal, from opening signoff to the process's end: logs to the data folder's
 * file, the command itself (commands.ts), and an orderly stop however it ends. Ctrl-C (or a
 * container's SIGTERM) and a closed stdout (`| head`) end the input, let the session say where its
 * task stands, stop the runs under way at once (their model calls aborted), then close; one line
 * says what is kept and which tasks were cut short, and how they go on.
 */
import { relative } from 'node:path';
import type { Config } from '../config/config.js';
import type { Logger } from '../logger.js';
import { onStopSignals } from '../stop-signals.js';
import { linesFrom } from './lines.js';
import { terminalLog } from './log-file.js';
import type { Output } from './printer.js';
import { type ScenarioTest, scenarioDatabase } from './scenario-run.js';
import { statusLine } from './status-line.js';
import type { TerminalIo } from './surface.js';

/** How long a command may take to wind up after Ctrl-C before the process stops regardless. */
const WIND_UP_MS = 3000;

/** Ends the command early with an exit code: 130 for Ctrl-C, 143 for SIGTERM, 0 for a closed stdout. */
export type EndEarly = (code: number) => void;

/**
 * Opens signoff with the terminal surface on it and starts the command (main.ts's `startTerminal`,
 * given by bin.ts: the terminal never wires the engine itself).
 */
export type StartTerminal = (
  config: Config,
  options: { logger: Logger; argv: readonly string[]; io: TerminalIo; test?: ScenarioTest },
) => Promise<{
  signoff: { runner: { stop(): string[] }; close(): Promise<void> };
  command: Promise<number>;
  /** The command's name as the screen suggests it. */
  cli: string;
}>;

/**
 * Runs `argv` (or the scenario `test`) in this process; returns the exit code. Signals are
 * handled here; `onEnd` receives the function that ends the command early, for whoever learns
 * that stdout was closed (bin.ts).
 */
export async function runTerminal(
  argv: string[],
  given: Config,
  io: { out: Output; err: Output; tty: boolean },
  test: ScenarioTest | undefined,
  onEnd: (end: EndEarly) => void,
  start: StartTerminal,
): Promise<number> {
  let config = given;
  const { err } = io;
  // Logs go to the data folder's signoff.log: JSON lines never cut into what the screen shows.
  const log = terminalLog(config.database.dataDir, config.logLevel);
  const { logger } = log;
  // At a terminal, what was typed before a question was shown never answers it; piped input is
  // a script of answers written ahead, read as it comes.
  const lines = linesFrom(process.stdin, { typedAhead: process.stdin.isTTY ? 'drop' : 'keep' });
  const stopping = new AbortController();
  let endedWith: number | undefined;
  let up = false;
  const end: EndEarly = (code) => {
    // A Ctrl-C after the end of output (a relayed one never comes here) does not wait.
    if (stopping.signal.aborted) {
      if (code !== 0) process.exit(code);
      return;
    }
    endedWith = code;
    stopping.abort();
    // Said at once: the database may take seconds more (initdb, the first time).
    if (!up && code !== 0) err.write('\nStopping once signoff has started…\n');
    // The end of input: a prompt returns, a session says where its task stands.
    lines.close();
  };
  // From the start: a Ctrl-C while the database starts (seconds; initdb the first time) stops the
  // command as soon as there is one, with the same sentence, instead of killing the process mute.
  onEnd(end);
  onStopSignals(end);
  // A scenario runs in a database of its own, made for the run and dropped after it.
  const scratch = test ? await scenarioDatabase(config, logger) : undefined;
  if (scratch) config = { ...config, database: { ...config.database, url: scratch.url } };
  const screen = statusLine(io.out, io.tty);
  const terminalIo: TerminalIo = { screen, err, tty: io.tty, lines, stopping: stopping.signal };
  const started = await start(config, { logger, argv, io: terminalIo, test }).catch(async (error) => {
    await scratch?.drop();
    // Stopped while the database was being made: the Ctrl-C reached its initdb too, whose
    // failure is the stop's doing, not news (the next start makes the folder again).
    if (!stopping.signal.aborted) throw error;
    logger.warn({ err: error }, 'stopped while starting; the start failed');
    return undefined;
  });
  if (!started) {
    err.write('Stopped before signoff had started: nothing was begun.\n');
    return endedWith ?? 130;
  }
  const { signoff, command, cli } = started;
  up = true;

  // Once, whichever comes first: the end of the command, or an early end.
  let closed: Promise<string[]> | undefined;
  const close = () =>
    (closed ??= (async () => {
      lines.close();
      // Runs under way stop now (their tasks stay working), not when their step would have ended.
      const cut = signoff.runner.stop();
      await signoff.close();
      await scratch?.drop();
      return cut;
    })());
  let code: number;
  try {
    code = (await windUp(command, stopping.signal)) ?? 1;
  } finally {
    const cut = await close();
    // A "… is thinking" line left on the screen would say a stopped step still runs.
    screen.status();
    if (endedWith)
      err.write(`\nStopped. Tasks and reviews are kept in ${keptIn(config)}; \`${cli} tasks\` lists them.\n`);
    for (const id of cut)
      err.write(
        `${id} was working: it goes on from its last step with \`${cli} resume ${id}\` (or in the next \`${cli}\` or \`${cli} run\`).\n`,
      );
    // The screen said what happened in sentences; the details are in the file, which is said.
    if (log.warnings()) err.write(`Warnings were logged; see ${log.file}\n`);
  }
  return endedWith ?? code;
}

/**
 * The command's exit code; once the process is stopping, at most WIND_UP_MS more for it to say
 * where it stands (undefined if it did not: the process stops anyway).
 */
async function windUp(command: Promise<number>, stopping: AbortSignal): Promise<number | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    const start = () => {
      timer = setTimeout(() => resolve(undefined), WIND_UP_MS);
    };
    if (stopping.aborted) start();
    else stopping.addEventListener('abort', start, { once: true });
  });
  // A command left behind fails quietly once its database is closed under it.
  command.catch(() => undefined);
  try {
    return await Promise.race([command, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Where tasks and reviews are kept, as a person would name it: the data folder, or the database. */
function keptIn(config: Config): string {
  if (config.database.url) return 'the database (DATABASE_URL)';
  const folder = relative(process.cwd(), config.database.dataDir);
  return `${folder && !folder.startsWith('..') ? folder : config.database.dataDir}/`;
}
