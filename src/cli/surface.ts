/**
 * The terminal surface of a running engine, the counterpart of the Slack one (slack/surface.ts):
 * what it gives the engine when it opens (`terminalParts`: the sink that prints events, the
 * callbacks that show a model thinking, which tasks ran here) and what runs on the engine once
 * open (`startTerminalSurface`: the feed, the workers, then the command or the scenario). How the
 * process starts and ends (logs, signals, the last words) is terminal.ts's.
 */
import type { Config } from '../config/config.js';
import type { Documents } from '../docs/documents.js';
import type { Engine, LiveView, Sink, Task } from '../engine/index.js';
import { modelAddress } from '../failures.js';
import type { WorkflowParts } from '../workflows/shared/types.js';
import { runCommand, runsTasks, terminalActor } from './commands.js';
import { CLI, commandWith } from './help.js';
import type { LineSource } from './lines.js';
import { createTerminalLive } from './live-words.js';
import { ANSI_STYLE, PLAIN_STYLE } from './markdown.js';
import { createFeed, type Feed, type Output } from './printer.js';
import { runScenarioTest, type ScenarioTest } from './scenario-run.js';
import { createThinking, type Thinking } from './thinking.js';
import { createUnfollowed, type Unfollowed } from './unfollowed.js';

export interface TerminalIo {
  /** The screen: what is shown, and the "… is thinking" line that goes first when anything else is written. */
  screen: Required<Output>;
  err: Output;
  tty: boolean;
  lines: LineSource;
  /** Aborted when the process is stopping (Ctrl-C, SIGTERM, a closed stdout). */
  stopping: AbortSignal;
}

export type { ScenarioTest };

/** What the engine is given (sinks, the models' callbacks, onRun), and the state the surface then runs with. */
export interface TerminalParts {
  sinks: { cli: Sink };
  /** Agents' words printed as they are written (live-words.ts). */
  lives: { cli: LiveView };
  /** For the models' calls: they show "… is thinking" on the screen. */
  modelCallbacks: Thinking['callbacks'];
  /** Told when a run of a task starts in this process. */
  onRun?: (task: Task) => void;
  /** The command's name as the screen suggests it (with the config file, when there is one). */
  cli: string;
  feed(engine: Engine): Feed;
  unfollowed: Unfollowed;
  /** What the screen showed, for a scenario's expectations. */
  transcript(): string;
  shown: Required<Output>;
}

/** The terminal's parts, for `argv` (or the scenario `test`). */
export function terminalParts(
  config: Config,
  argv: readonly string[],
  io: TerminalIo,
  test?: ScenarioTest,
): TerminalParts {
  // The failures' sentences name the model service's address to the person at the keyboard, who
  // set it (Slack's, stored, do not: a team's members need not see an internal host); only for the
  // tasks run here: another process's (a Slack worker, an earlier run) may have had another.
  const address = modelAddress(config.model);
  const ranHere = new Set<string>();
  // A command the screen suggests must find the same workflows: with a config file, it names it
  // (a scenario's task ends with its run: no hint names a command to continue it).
  const cli = test ? CLI : commandWith(config.configPath);
  const thinking = createThinking();
  const { screen, err } = io;
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
  const printed: string[] = [];
  // What the terminal shows, kept too: a scenario's expectations read it.
  const style = io.tty ? ANSI_STYLE : PLAIN_STYLE;
  const live = createTerminalLive(
    {
      write: (text: string) => {
        if (test) printed.push(text);
        screen.write(text);
      },
      status: screen.status,
    },
    style,
  );
  const shown = live.screen;
  let feed: Feed | undefined;
  return {
    sinks: {
      cli: (event, task) => {
        unfollowed.seen(event, task);
        return (feed as Feed).sink(event, task);
      },
    },
    lives: { cli: live.view },
    modelCallbacks: thinking.callbacks,
    // A scenario's database is made for its one task: nothing else runs there.
    onRun: test
      ? undefined
      : (task) => {
          ranHere.add(task.id);
          unfollowed.ran(task);
        },
    cli,
    unfollowed,
    transcript: () => printed.join(''),
    shown,
    feed: (engine) =>
      (feed ??= createFeed({
        events: engine.events,
        out: shown,
        show: { style, now: () => new Date(), cli },
        streamed: live.printedAs,
        speaks: live.speaks,
        thinking: thinking.of,
        modelAt: (taskId) => (ranHere.has(taskId) ? address : undefined),
      })),
  };
}

export interface TerminalSurfaceOptions {
  config: Config;
  /** The engine it serves, opened with the terminal's parts. */
  signoff: { engine: Engine; documents: Documents; parts: ReadonlyMap<string, WorkflowParts> };
  parts: TerminalParts;
  argv: readonly string[];
  io: TerminalIo;
  test?: ScenarioTest;
}

/** Runs the command (or the scenario) on the open engine; resolves to its exit code. */
export async function startTerminalSurface(o: TerminalSurfaceOptions): Promise<number> {
  const { config, signoff, parts, argv, io, test } = o;
  const { engine } = signoff;
  const feed = parts.feed(engine);
  // Stopped (Ctrl-C) while the database started: nothing begins, no task, no worker, no prompt.
  if (io.stopping.aborted) return 130;
  // Only commands that follow a task run tasks: `tasks` or `audit` never start an agent.
  if (test || (runsTasks(argv) && !(await retryRefused(argv, engine))))
    await engine.work('cli', config.queue.workers);
  if (test) {
    return runScenarioTest(
      { engine, feed, out: parts.shown, actor: terminalActor(), transcript: parts.transcript },
      test,
      signoff.parts,
      io.err,
    );
  }
  return runCommand(
    [...argv],
    engine,
    feed,
    {
      lines: io.lines,
      out: parts.shown,
      err: io.err,
      stopping: io.stopping,
      follow: parts.unfollowed.follow,
      cli: parts.cli,
    },
    signoff.documents,
    { workflows: new Set(signoff.parts.keys()), configPath: config.configPath },
  );
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
