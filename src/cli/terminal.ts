/**
 * A command in the terminal, from opening signoff to the process's end: logs to the data folder's
 * file, the command itself (commands.ts), and an orderly stop however it ends. Ctrl-C (or a
 * container's SIGTERM) and a closed stdout (`| head`) end the input, let the session say where its
 * task stands, stop the runs under way at once (their model calls aborted), then close; one line
 * says what is kept and which tasks were cut short, and how they go on.
 */
import { relative } from 'node:path';
import type { Config } from '../config/config.js';
import type { Engine } from '../engine/index.js';
import { modelAddress } from '../failures.js';
import { createModelFor } from '../llm/models.js';
import { openSignoff } from '../main.js';
import { runCommand, runsTasks, terminalActor } from './commands.js';
import { CLI, commandWith } from './help.js';
import { linesFrom } from './lines.js';
import { terminalLog } from './log-file.js';
import { ANSI_STYLE, PLAIN_STYLE } from './markdown.js';
import { createFeed, type Feed, type Output } from './printer.js';
import { runScenarioTest, type ScenarioTest, scenarioDatabase, scenarioModels } from './scenario-run.js';
import { statusLine } from './status-line.js';
import { createThinking } from './thinking.js';
import { createUnfollowed } from './unfollowed.js';

/** How long a command may take to wind up after Ctrl-C before the process stops regardless. */
const WIND_UP_MS = 3000;

/** Ends the command early with an exit code: 130 for Ctrl-C, 143 for SIGTERM, 0 for a closed stdout. */
export type EndEarly = (code: number) => void;

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
): Promise<number> {
  let config = given;
  // The failures' sentences name the model service's address to the person at the keyboard, who
  // set it (Slack's, stored, do not: a team's members need not see an internal host); only for the
  // tasks run here: another process's (a Slack worker, an earlier run) may have had another.
  const address = modelAddress(config.model);
  const ranHere = new Set<string>();
  const modelAt = (taskId: string) => (ranHere.has(taskId) ? address : undefined);
  // A command the screen suggests must find the same workflows: with a config file, it names it
  // (a scenario's task ends with its run: no hint names a command to continue it).
  const cli = test ? CLI : commandWith(config.configPath);
  const { err } = io;
  // Logs go to the data folder's signoff.log: JSON lines never cut into what the screen shows.
  const log = terminalLog(config.database.dataDir, config.logLevel);
  const { logger } = log;
  // At a terminal, what was typed before a question was shown never answers it; piped input is
  // a script of answers written ahead, read as it comes.
  const lines = linesFrom(process.stdin, { typedAhead: process.stdin.isTTY ? 'drop' : 'keep' });
  const thinking = createThinking();
  // A scenario runs in a database of its own, made for the run and dropped after it.
  const scratch = test ? await scenarioDatabase(config, logger) : undefined;
  if (scratch) config = { ...config, database: { ...config.database, url: scratch.url } };
  let feed: Feed | undefined;
  const screen = statusLine(io.out, io.tty);
  // Notices on stderr; a "… is thinking" line on the screen goes first, or they would end it.
  const unfollowed = createUnfollowed(
    (text) => {
      screen.status();
      err.write(text);
    },
    address,
    cli,
  );
  // The task a command names is followed before any of its runs can start here.
  if (['resume', 'retry', 'redirect'].includes(argv[0] as string) && argv[1]) unfollowed.follow(argv[1]);
  const app = await openSignoff(config, {
    logger,
    sinks: {
      cli: (event, task) => {
        unfollowed.seen(event, task);
        return (feed as Feed).sink(event, task);
      },
    },
    // A scenario's database is made for its one task: nothing else runs there.
    onRun: test
      ? undefined
      : (task) => {
          ranHere.add(task.id);
          unfollowed.ran(task);
        },
    // A scenario runs on the offline model, its agents answering what the file says.
    modelFor: test
      ? scenarioModels(test.scenario)
      : createModelFor(config.model, { callbacks: thinking.callbacks }),
  }).catch(async (error) => {
    await scratch?.drop();
    throw error;
  });
  const printed: string[] = [];
  // What the terminal shows, kept too: a scenario's expectations read it.
  const shown = {
    write: (text: string) => {
      if (test) printed.push(text);
      screen.write(text);
    },
    status: screen.status,
  };
  feed = createFeed({
    events: app.engine.events,
    out: shown,
    show: { style: io.tty ? ANSI_STYLE : PLAIN_STYLE, now: () => new Date() },
    thinking: thinking.of,
    modelAt,
  });

  // Once, whichever comes first: the end of the command, or an early end.
  let closed: Promise<string[]> | undefined;
  const close = () =>
    (closed ??= (async () => {
      lines.close();
      // Runs under way stop now (their tasks stay working), not when their step would have ended.
      const cut = app.runner.stop();
      await app.close();
      await scratch?.drop();
      return cut;
    })());
  const stopping = new AbortController();
  let endedWith: number | undefined;
  const end: EndEarly = (code) => {
    // A second Ctrl-C does not wait.
    if (stopping.signal.aborted) {
      if (code !== 0) process.exit(code);
      return;
    }
    endedWith = code;
    stopping.abort();
    // The end of input: a prompt returns, a session says where its task stands.
    lines.close();
  };
  onEnd(end);
  process.on('SIGINT', () => end(130));
  process.on('SIGTERM', () => end(143));

  let code: number;
  try {
    // Only commands that follow a task run tasks: `tasks` or `audit` never start an agent.
    if (test || (runsTasks(argv) && !(await retryRefused(argv, app.engine))))
      await app.engine.work('cli', config.queue.workers);
    const command = test
      ? runScenarioTest(
          {
            engine: app.engine,
            feed,
            out: shown,
            actor: terminalActor(),
            transcript: () => printed.join(''),
          },
          test,
          app.parts,
          err,
        )
      : runCommand(
          argv,
          app.engine,
          feed,
          { lines, out: shown, err, stopping: stopping.signal, follow: unfollowed.follow, cli },
          app.documents,
          { workflows: new Set(app.parts.keys()), configPath: config.configPath },
        );
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

/**
 * A retry of a task that has not failed is refused (resume is the word for it): this process must
 * not start workers that would run that very task meanwhile, or the refusal would do what it refuses.
 */
async function retryRefused(argv: readonly string[], engine: Engine): Promise<boolean> {
  if (argv[0] !== 'retry' || !argv[1]) return false;
  const status = (await engine.getTask(argv[1]))?.status;
  return status === 'working' || status === 'waiting';
}
