/**
 * `signoff` in a terminal:
 *   signoff                         interactive: asks for a workflow and a task
 *   signoff run <workflow> <task…>  starts a task and answers its reviews here
 *   signoff resume <task-id>        continues a task (from any process, any time later)
 *   signoff tasks                   lists tasks and their status
 *   signoff events <task-id>        everything the task showed (or could not show), and how
 *   signoff audit [<task-id>] [--since 7d] [--format jsonl|csv]  who decided what: the audit trail
 *   signoff rules [approve|reject|revoke <n>]  standing rules ("always allow"): list, sign off, end
 *   signoff retry <task-id>         runs a failed task again from its last step
 *   signoff cancel <task-id>        cancels a task
 *   signoff redirect <task-id> <goal…>  gives a working task a new goal (seed 003)
 *   signoff docs add <folder> [collection]  ingests text and Markdown files for searches
 *   signoff test <workflow> --scenario <file>  runs a scenario file offline, checks it (bin.ts)
 * Exit codes follow one rule (exit-codes.ts): 0 done, 1 could not do what was asked, 2 bad usage, 3
 * the followed task failed. `help`, and words that are wrong on their own (usage.ts), are answered
 * in bin.ts, before anything starts.
 */
import { existsSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname } from 'node:path';
import type { Documents } from '../docs/documents.js';
import type { Engine } from '../engine/index.js';
import { operator, type Task, takesWords } from '../engine/index.js';
import { isSignoffError, SignoffError } from '../errors.js';
import { isHelp, isQuit } from './answer.js';
import { exportAudit } from './audit.js';
import { readsLikeCommand } from './command-lines.js';
import { EXIT_COULD_NOT, EXIT_USAGE, exitCodeOf } from './exit-codes.js';
import { AT_THE_PROMPT, CLI, SHELL, TASKS_LISTED, workflowLines } from './help.js';
import type { LineSource } from './lines.js';
import { commandWords } from './options.js';
import { type createFeed, formatEventInFull, type Output, statusWords, taskHeading } from './printer.js';
import { rulesCommand } from './rules.js';
import { runSession } from './session.js';
import { existing, notLoaded } from './task-lookup.js';
import { taskTable } from './task-table.js';
import { COMMANDS, isOtherName, isWorkflow, usageError } from './usage.js';

export interface CliIo {
  lines: LineSource;
  out: Output;
  err: Output;
  /** Aborted when the process stops early (Ctrl-C): a session following a working task ends. */
  stopping?: AbortSignal;
  /** Says which tasks this session follows: the others that run here are announced (unfollowed.ts). */
  follow?: (taskId: string) => void;
  /** The command as hints name it (help.ts's commandWith); `npx signoff` when not given. */
  cli?: string;
  /** At the interactive prompt, whose hints name a command as typed there: `events cli-…`. */
  atPrompt?: boolean;
}

/**
 * The commands that follow a task (and the prompt, which starts them): only these run tasks in
 * their process. `tasks`, `events`, `audit`, `docs` and `cancel` never start an agent's step that
 * their quick end would then cut short.
 */
const FOLLOWING = new Set([undefined, 'run', 'resume', 'retry', 'redirect']);
export const runsTasks = (argv: readonly string[]) => FOLLOWING.has(argv[0]);

/**
 * The exit code of a command that followed a task: 3 when the task failed (0 when it ended
 * otherwise or waits: a rejection is a person's decision, a review waiting is a task kept). Not 1
 * or 2, which say the command itself could not run (a task in the wrong state, bad input).
 */
export const TASK_FAILED = 3;
const followed = (task: Task) => (task.status === 'failed' ? TASK_FAILED : 0);

/** The terminal's user, as the requester and reviewer of its tasks. */
export const terminalActor = () => `cli:${safeUser()}`;
function safeUser(): string {
  try {
    return userInfo().username || 'user';
  } catch {
    return 'user';
  }
}

/**
 * What this process loaded: the workflows it can run (built-in, declared, modules) and the config
 * file they came from. A task of a workflow declared in a file this run did not load cannot run
 * here: a command that would continue it says so before anything is decided.
 */
export interface Loaded {
  workflows: ReadonlySet<string>;
  configPath?: string;
}

/** Runs one command against an engine whose workers run in this process; returns the exit code. */
export async function runCommand(
  argv: string[],
  engine: Engine,
  feed: ReturnType<typeof createFeed>,
  io: CliIo,
  documents?: Pick<Documents, 'addFolder'>,
  loaded?: Loaded,
): Promise<number> {
  // `--` ends the options (options.ts): the words after it are taken as they are.
  const [command, ...rest] = commandWords(argv);
  const cli = io.atPrompt ? AT_THE_PROMPT : SHELL;
  const resume = (task: Task) => `${io.atPrompt ? '' : `${io.cli ?? CLI} `}resume ${task.id}`;
  /**
   * The task `rest[0]` names, if this run can go on with it; followed from here on. At the prompt
   * this process's workers already run: a run of the task they start after a decision is this
   * session's to show, not one to announce as "continued here" (unfollowed.ts).
   */
  const runnable = async () => {
    const task = await existing(engine, rest[0], command as string, cli);
    if (loaded && !loaded.workflows.has(task.workflow))
      throw new SignoffError('unknown_workflow', notLoaded(task, command as string, loaded.configPath));
    io.follow?.(task.id);
    return task;
  };
  const actor = terminalActor();
  const session = { engine, lines: io.lines, out: io.out, actor, feed, stopping: io.stopping, cli: io.cli };
  const usage = usageError(argv, names(engine), cli);
  if (usage) return fail(io, usage);
  try {
    switch (command) {
      case undefined:
        return await interactive(engine, feed, io, actor, documents, loaded);
      case 'run': {
        const [workflow = '', ...words] = rest;
        return await startAndFollow(engine, feed, io, actor, workflow, words.join(' '));
      }
      case 'resume': {
        const task = await runnable();
        if (task.status !== 'waiting' && task.status !== 'working') {
          io.err.write(`Task ${task.id} is ${statusWords(task.status)}; there is nothing to decide.\n`);
          return EXIT_COULD_NOT;
        }
        // Its history is not printed again, but which task this is, is: as `run` says it first.
        io.out.write(`${taskHeading(task)}\n`);
        await feed.pump(task.id, true);
        return followed(await runSession(session, task.id));
      }
      case 'tasks':
        await listTasks(engine, io.out);
        return 0;
      case 'events': {
        const task = await existing(engine, rest[0], command, cli);
        for (const e of await engine.eventRecords(task.id)) {
          const how = e.state === 'delivered' ? 'shown' : e.state === 'failed' ? 'NOT SHOWN' : 'waiting';
          const error = e.lastError ? ` (${e.lastError}; ${e.attempts} attempts)` : '';
          io.out.write(`#${e.id} ${e.event.type} ${how}${error}\n`);
          // In full: a card Slack could not show points here for its content.
          io.out.write(`${formatEventInFull(e).trim().replace(/^/gm, '    ')}\n`);
        }
        return 0;
      }
      case 'rules':
        return await rulesCommand(rest, engine, io.out, actor, cli);
      case 'audit': {
        const n = await exportAudit(rest, engine, io.out, new Date(), cli);
        if (!n) io.err.write('No audit entries match.\n');
        return 0;
      }
      case 'retry': {
        const task = await runnable();
        // A task left working (Ctrl-C) or waiting goes on with resume, not retry: say that one.
        if (task.status === 'working' || task.status === 'waiting') {
          io.err.write(
            `Task ${task.id} is ${statusWords(task.status)}, not failed: ${task.status === 'working' ? 'it goes on from its last step' : 'answer its review'} with: ${resume(task)}\n`,
          );
          return EXIT_COULD_NOT;
        }
        // What happened so far, then a mark: the old "[failed: …]" is not this attempt's. (Nothing
        // runs a failed task meanwhile: what the retry's run says comes after the mark.)
        if (task.status === 'failed') await feed.pump(task.id);
        await engine.retry(task.id, operator(actor));
        io.out.write('— retrying from its last step —\n');
        return followed(await runSession(session, task.id));
      }
      case 'cancel': {
        const task = await engine.cancel((await existing(engine, rest[0], command, cli)).id, operator(actor));
        io.out.write(`task ${task.id}: ${statusWords(task.status)}\n`);
        return 0;
      }
      case 'docs': {
        // The words (`add <folder>`) were checked by usageError above.
        const [, folder = '', collection] = rest;
        if (!documents) return fail(io, `usage: ${cli}docs add <folder> [collection]`);
        if (!existsSync(folder)) return fail(io, `There is no folder "${folder}".`);
        if (!statSync(folder).isDirectory()) {
          return fail(
            io,
            `"${folder}" is a file; docs add takes the folder it is in: ${cli}docs add ${dirname(folder)}${collection ? ` ${collection}` : ''}`,
          );
        }
        const added = await documents.addFolder(folder, collection);
        // A folder with nothing to add is no success: the collection a search reads is as it was.
        if (!added.files) {
          io.err.write(`No .md or .txt files under "${folder}"; nothing added.\n`);
          return EXIT_COULD_NOT;
        }
        io.out.write(
          `${added.files} document${added.files === 1 ? '' : 's'} in the collection "${added.collection}" (added or updated).\n`,
        );
        return 0;
      }
      case 'redirect': {
        const task = await runnable();
        // Waiting, its agents are idle: what the person has to say reaches them as the review's
        // feedback, where the review takes words that are feedback (not a tool call's, nor a
        // proposal's "the query to search instead").
        if (task.status === 'waiting') {
          const [review] = await engine.reviews(task.id, 'pending');
          const feedback = review && takesWords(review.request) && !review.request.feedbackLabel;
          io.err.write(
            `Task ${task.id} is waiting for a review, so no agent is working to redirect. ${
              feedback
                ? `Send the agents your words as feedback instead: ${resume(task)}, then type "revise: <your words>".`
                : `Answer the review first: ${resume(task)} (type help there for its choices).`
            }\n`,
          );
          return EXIT_COULD_NOT;
        }
        await engine.redirect(task.id, rest.slice(1).join(' '), operator(actor));
        io.out.write(`task ${task.id}: redirected; the agents start over on the new goal.\n`);
        return followed(await runSession(session, task.id));
      }
      default:
        // Every other command is refused by usageError above.
        return EXIT_USAGE;
    }
  } catch (error) {
    if (isSignoffError(error)) {
      io.err.write(`${error.message}\n`);
      return exitCodeOf(error.code);
    }
    throw error;
  }
}

async function startAndFollow(
  engine: Engine,
  feed: ReturnType<typeof createFeed>,
  io: CliIo,
  actor: string,
  workflow: string,
  text: string,
): Promise<number> {
  // Workflow names are lowercase (the config file allows no other), so "Pair" can only mean pair:
  // taken as such rather than refused, as a shell's auto-capitalised first word would be.
  const { task } = await engine.start({
    workflow: workflow.toLowerCase(),
    text,
    requester: actor,
    surface: 'cli',
  });
  // At once, before its run can start: no I/O comes between the start and this line.
  io.follow?.(task.id);
  return followed(
    await runSession(
      { engine, lines: io.lines, out: io.out, actor, feed, stopping: io.stopping, cli: io.cli },
      task.id,
    ),
  );
}

/** The shell's commands that also work at the prompt (`tasks` and `help` are the prompt's own). */
const PROMPT_COMMANDS = new Set([...COMMANDS].filter((c) => c !== 'tasks'));

async function interactive(
  engine: Engine,
  feed: ReturnType<typeof createFeed>,
  io: CliIo,
  actor: string,
  documents?: Pick<Documents, 'addFolder'>,
  loaded?: Loaded,
): Promise<number> {
  // The shell's commands run here are said as typed here (`events cli-…`, not `npx signoff events …`).
  const here = { ...io, atPrompt: true };
  io.out.write(`signoff in the terminal (no Slack tokens set). Workflows:\n${describe(engine)}\n`);
  await sayWaiting(engine, io, 'here');
  for (;;) {
    // Stopped (Ctrl-C) during a task: its session's status line stays the last line, no new prompt.
    if (io.stopping?.aborted) return 0;
    // Ctrl-D at a review ended the input: that leaves here too, without a question nobody can
    // answer (`quit` there comes back here).
    if (io.lines.ended()) {
      await sayWaiting(engine, io);
      return 0;
    }
    io.out.write(
      '\nWhat should the agents do? Type "<workflow> <task>", or help, tasks (quit, or an empty line, to leave)\n> ',
    );
    // A command pasted as the shell takes it ("npx signoff resume cli-…", "Signoff tasks") is that command.
    const line = (await io.lines.next())?.trim().replace(/^(npx\s+)?signoff\s+/i, '');
    // `quit` alone leaves here as it leaves a review (a workflow's name alone starts nothing).
    if (!line || isQuit(line)) {
      await sayWaiting(engine, io);
      return 0;
    }
    const [first = '', ...words] = line.split(/\s+/);
    const workflow = first.toLowerCase();
    // The prompt's own commands (`?` too, as at a review); no workflow is named so (config checks names).
    if (isHelp(line)) {
      io.out.write(
        `Workflows:\n${describe(engine)}\nAt a review: Enter or "approve" approves (only the word "approve" at a tool call), "reject" rejects, a sentence (or "revise: …") is feedback; "help" there lists every choice.\nThe commands (${[...PROMPT_COMMANDS].join(', ')}) work here as in the shell, e.g. resume cli-1a2b3c4d.\n`,
      );
      continue;
    }
    if ((workflow === 'tasks' || workflow === 'list') && !words.length) {
      await listTasks(engine, io.out, `Start one here: type "<workflow> <task>", e.g. ${example(engine)}`);
      continue;
    }
    // `resume cli-…`, as the stopped task's hint says: run here as from the shell (a workflow of
    // that name, if the config file has one, keeps it). `tasks` with words is refused as there.
    if (COMMANDS.has(workflow) && !isWorkflow(names(engine), workflow)) {
      await runCommand([workflow, ...shellWords(words.join(' '))], engine, feed, here, documents, loaded);
      continue;
    }
    // A shell line (`npm start`, `clear`) typed here, as at a review: said to be one, not taken
    // for a workflow of that name (the review's detection, one list for both).
    if (!isWorkflow(names(engine), workflow) && readsLikeCommand(line)) {
      io.out.write(
        `"${line}" reads like a shell command, not a task: type "<workflow> <task>" (e.g. ${example(engine)}), help or tasks here; to run it, leave first with quit (or an empty line).\n`,
      );
      continue;
    }
    // A command by another name with its words (`status cli-…`, pasted from the shell): the
    // shell's answer, which names the command meant.
    if (isOtherName(workflow) && !isWorkflow(names(engine), workflow)) {
      await runCommand([workflow, ...shellWords(words.join(' '))], engine, feed, here, documents, loaded);
      continue;
    }
    try {
      await startAndFollow(engine, feed, io, actor, workflow, words.join(' '));
    } catch (error) {
      if (!isSignoffError(error)) throw error;
      io.out.write(`${error.message}\n`);
    }
  }
}

/**
 * What waits for a review in the terminal, and how to come back to it: on leaving the prompt (the
 * shell's commands), or on coming to it (`here`: the prompt's own).
 */
async function sayWaiting(engine: Engine, io: CliIo, at: 'here' | 'shell' = 'shell'): Promise<void> {
  // A Ctrl-C says its own sentence of what is kept (terminal.ts).
  if (io.stopping?.aborted) return;
  // Every surface's, as `tasks` lists them (those asked through the HTTP API too): a count of
  // the terminal's own said 3 where the table it points to showed 6 waiting.
  const waiting = await engine.listTasks({ statuses: ['waiting'], limit: 100 }).catch(() => []);
  if (!waiting.length) return;
  // The one to pick up is the terminal's own when there is one: a review asked in Slack may name
  // reviewers this terminal's user is not.
  const first = waiting.find((t) => t.surface === 'cli') ?? (waiting[0] as Task);
  const cli = at === 'here' ? '' : `${io.cli ?? CLI} `;
  const which = waiting.length === 1 ? 'it' : 'one';
  // On leaving, a line of its own: after Ctrl-D (or piped input) the cursor is still on "> ".
  io.out.write(
    `${at === 'here' ? '' : '\n'}${waiting.length === 1 ? '1 task waits' : `${waiting.length} tasks wait`} for a review${at === 'here' ? '' : ', kept for later'}: \`${cli}tasks\` lists them; \`${cli}resume ${first.id}\` picks ${which} up.\n`,
  );
}

/** The tasks table; with none, how to start one (`start`: at the prompt, what to type there). */
async function listTasks(
  engine: Engine,
  out: Output,
  start = `Start one with: ${CLI} run <workflow> <task…>`,
): Promise<void> {
  const tasks = await engine.listTasks({ limit: TASKS_LISTED });
  out.write(tasks.length ? taskTable(tasks, new Date()) : `No tasks yet. ${start}\n`);
}

const names = (engine: Engine) => engine.available().map((w) => w.name);
/** A task to type at the prompt, with the first workflow this run offers. */
const example = (engine: Engine) => `${engine.available()[0]?.name ?? 'pair'} write a product announcement`;
const describe = (engine: Engine) => workflowLines(engine.available());

/** A line split as a shell would into words: quotes group ("…" or '…') and are removed. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

function fail(io: CliIo, message: string): number {
  io.err.write(`${message}\n`);
  return EXIT_USAGE;
}
