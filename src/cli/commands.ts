/**
 * `signoff` in a terminal:
 *   signoff                         interactive: asks for a workflow and a task
 *   signoff run <workflow> <task…>  starts a task and answers its reviews here
 *   signoff resume <task-id>        continues a task (from any process, any time later)
 *   signoff tasks                   lists tasks and their status
 *   signoff events <task-id>        everything the task showed (or could not show), and how
 *   signoff audit [<task-id>] [--since 7d] [--format jsonl|csv]  who decided what: the audit trail
 *   signoff retry <task-id>         runs a failed task again from its last step
 *   signoff cancel <task-id>        cancels a task
 *   signoff redirect <task-id> <goal…>  gives a working task a new goal (seed 003)
 *   signoff docs add <folder> [collection]  ingests text and Markdown files for searches
 *   signoff test <workflow> --scenario <file>  runs a scenario file offline, checks it (bin.ts)
 * Bad input: one clear line and exit code 2 (1 when the task is in the wrong state). `help` is
 * answered in bin.ts, before anything starts.
 */
import { existsSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import type { Documents } from '../docs/documents.js';
import type { Engine } from '../engine/api.js';
import { operator } from '../engine/types.js';
import { isSignoffError, SignoffError } from '../errors.js';
import { exportAudit } from './audit.js';
import { CLI, USAGE, workflowLines } from './help.js';
import type { LineSource } from './lines.js';
import { type createFeed, formatEvent, type Output, printable, statusWords } from './printer.js';
import { runSession } from './session.js';
import { taskTable } from './task-table.js';

export interface CliIo {
  lines: LineSource;
  out: Output;
  err: Output;
}

/** The terminal's user, as the requester and reviewer of its tasks. */
export const terminalActor = () => `cli:${safeUser()}`;
function safeUser(): string {
  try {
    return userInfo().username || 'user';
  } catch {
    return 'user';
  }
}

/** Runs one command against an engine whose workers run in this process; returns the exit code. */
export async function runCommand(
  argv: string[],
  engine: Engine,
  feed: ReturnType<typeof createFeed>,
  io: CliIo,
  documents?: Pick<Documents, 'addFolder'>,
): Promise<number> {
  const [command, ...rest] = argv;
  const actor = terminalActor();
  const session = { engine, lines: io.lines, out: io.out, actor, feed };
  try {
    switch (command) {
      case undefined:
        return await interactive(engine, feed, io, actor);
      case 'run': {
        const [workflow, ...words] = rest;
        if (!workflow) return fail(io, `Name a workflow: ${CLI} run <workflow> <task…> (${names(engine)}).`);
        return await startAndFollow(engine, feed, io, actor, workflow, words.join(' '));
      }
      case 'resume': {
        const task = await existing(engine, rest[0]);
        if (task.status !== 'waiting' && task.status !== 'working') {
          io.err.write(`Task ${task.id} is ${statusWords(task.status)}; there is nothing to decide.\n`);
          return 1;
        }
        await feed.pump(task.id, true);
        await runSession(session, task.id);
        return 0;
      }
      case 'tasks':
        await listTasks(engine, io.out);
        return 0;
      case 'events': {
        const task = await existing(engine, rest[0]);
        for (const e of await engine.eventRecords(task.id)) {
          const how = e.state === 'delivered' ? 'shown' : e.state === 'failed' ? 'NOT SHOWN' : 'waiting';
          const error = e.lastError ? ` (${e.lastError}; ${e.attempts} attempts)` : '';
          io.out.write(`#${e.id} ${e.event.type} ${how}${error}\n`);
          const line =
            formatEvent(e) ??
            // In full: a card Slack could not show points here for its content.
            (e.event.type === 'review_requested'
              ? printable(`Review: ${e.event.review.request.title}\n${e.event.review.request.body}`)
              : undefined);
          if (line) io.out.write(`${line.trim().replace(/^/gm, '    ')}\n`);
        }
        return 0;
      }
      case 'audit': {
        const n = await exportAudit(rest, engine, io.out, new Date());
        if (!n) io.err.write('No audit entries match.\n');
        return 0;
      }
      case 'retry': {
        const task = await existing(engine, rest[0]);
        await engine.retry(task.id, operator(actor));
        await runSession(session, task.id);
        return 0;
      }
      case 'cancel': {
        const task = await engine.cancel((await existing(engine, rest[0])).id, operator(actor));
        io.out.write(`task ${task.id}: ${statusWords(task.status)}\n`);
        return 0;
      }
      case 'docs': {
        const [sub, folder, collection] = rest;
        if (sub !== 'add' || !folder || !documents) {
          return fail(io, `usage: ${CLI} docs add <folder> [collection]`);
        }
        if (!existsSync(folder) || !statSync(folder).isDirectory()) {
          return fail(io, `There is no folder "${folder}".`);
        }
        const added = await documents.addFolder(folder, collection);
        io.out.write(
          added.files
            ? `${added.files} document${added.files === 1 ? '' : 's'} in the collection "${added.collection}" (added or updated).\n`
            : `No .md or .txt files under "${folder}"; nothing added.\n`,
        );
        return 0;
      }
      case 'redirect': {
        const task = await existing(engine, rest[0]);
        await engine.redirect(task.id, rest.slice(1).join(' '), operator(actor));
        io.out.write(`task ${task.id}: redirected; the agents start over on the new goal.\n`);
        await runSession(session, task.id);
        return 0;
      }
      default:
        return fail(io, `Unknown command "${command}".\n${USAGE}`);
    }
  } catch (error) {
    if (isSignoffError(error)) {
      io.err.write(`${error.message}\n`);
      return error.code === 'task_not_waiting' || error.code === 'task_not_working' ? 1 : 2;
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
  const { task } = await engine.start({ workflow, text, requester: actor, surface: 'cli' });
  await runSession({ engine, lines: io.lines, out: io.out, actor, feed }, task.id);
  return 0;
}

async function interactive(
  engine: Engine,
  feed: ReturnType<typeof createFeed>,
  io: CliIo,
  actor: string,
): Promise<number> {
  io.out.write(`signoff in the terminal (no Slack tokens set). Workflows:\n${describe(engine)}\n`);
  for (;;) {
    io.out.write(
      '\nWhat should the agents do? Type "<workflow> <task>", or help, tasks (empty line or end of input to quit)\n> ',
    );
    const line = (await io.lines.next())?.trim();
    if (!line) return 0;
    const [workflow = '', ...words] = line.split(/\s+/);
    // The prompt's own commands; no workflow can be named so (the config file's names are checked).
    if (workflow === 'help' && !words.length) {
      io.out.write(
        `Workflows:\n${describe(engine)}\nAt a review: Enter approves ("approve" at a tool call), "reject" rejects, any other text is feedback.\n`,
      );
      continue;
    }
    if (workflow === 'tasks' && !words.length) {
      await listTasks(engine, io.out);
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

async function existing(engine: Engine, id: string | undefined) {
  if (!id)
    throw new SignoffError(
      'unknown_task',
      `Name the task, e.g. ${CLI} resume cli-1a2b3c4d (see: ${CLI} tasks).`,
    );
  const task = await engine.getTask(id);
  if (!task) throw new SignoffError('unknown_task', `There is no task "${id}". See them with: ${CLI} tasks`);
  return task;
}

async function listTasks(engine: Engine, out: Output): Promise<void> {
  const tasks = await engine.listTasks({ limit: 50 });
  out.write(
    tasks.length
      ? taskTable(tasks, new Date())
      : `No tasks yet. Start one with: ${CLI} run <workflow> <task…>\n`,
  );
}

const names = (engine: Engine) =>
  engine
    .available()
    .map((w) => w.name)
    .join(', ');
const describe = (engine: Engine) => workflowLines(engine.available());

function fail(io: CliIo, message: string): number {
  io.err.write(`${message}\n`);
  return 2;
}
