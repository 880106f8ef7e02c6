/**
 * A command whose words alone are wrong (no task id, no workflow, an unknown command): said in one
 * line from the words and the configured workflows' names, before anything starts. bin.ts asks
 * here before the database opens (a fresh clone's first start is ~10 s of initdb, too long to
 * wait for a usage line); runCommand asks too, for the prompt, which runs the same commands.
 */
import { AT_THE_PROMPT, SHELL, TASKS_LISTED, USAGE } from './help.js';
import { commandWords, looksLikeOption, unknownOption } from './options.js';

/** The commands runCommand knows; `help` and `test` are answered in bin.ts. */
export const COMMANDS: ReadonlySet<string> = new Set([
  'run',
  'resume',
  'tasks',
  'events',
  'audit',
  'retry',
  'cancel',
  'docs',
  'redirect',
  'rules',
]);
/** The commands that name a task first. */
const ON_A_TASK = new Set(['resume', 'events', 'retry', 'cancel', 'redirect']);
/** The commands that take a task id and nothing else (redirect takes a goal after it). */
const ONLY_A_TASK = new Set(['resume', 'events', 'retry', 'cancel']);

/**
 * A task started, as typed where the hint is read: `npx signoff run pair "…"` in the shell, `pair …`
 * at the prompt (which takes the words after the workflow as they are, quotes and all).
 */
const startLine = (cli: string, workflow: string, task: string) =>
  cli === AT_THE_PROMPT ? `${workflow} ${task.replace(/^"(.*)"$/, '$1')}` : `${cli}run ${workflow} ${task}`;

/** What is wrong with `argv`'s shape, in one line (or more: an unknown command adds the usage); undefined when nothing is. */
export function usageError(
  argv: readonly string[],
  workflows: readonly string[],
  /** How the hints name a command: SHELL, or AT_THE_PROMPT (help.ts). */
  cli = SHELL,
): string | undefined {
  const [command, ...given] = argv;
  if (command === undefined || command === 'test' || command === 'help') return undefined;
  // A hint that names the command meant is the whole answer; the usage only when none does.
  if (!COMMANDS.has(command))
    return unknownCommand(workflows, command, given, cli) ?? `Unknown command "${command}".\n${USAGE}`;
  // An option where none is taken would otherwise be read as a task's words or its id.
  const option = unknownOption(argv, cli);
  if (option) return option;
  const [, ...rest] = commandWords(argv);
  if (ON_A_TASK.has(command) && !rest[0]) return nameTheTask(command, cli);
  // Words after the id would be dropped unread: `cancel cli-1 cli-2` would cancel one of the two.
  if (ONLY_A_TASK.has(command) && rest.length > 1) return oneTaskId(command, rest, cli);
  // Words after `tasks` would be read as a filter that is not applied: refused, not ignored.
  if (command === 'tasks' && rest.length) return tasksTakeNothing(rest, cli);
  if (command === 'run') {
    const [workflow, ...words] = rest;
    if (!workflow)
      return `Name a workflow: ${startLine(cli, '<workflow>', '<task…>')} (${workflows.join(', ')}).`;
    // The engine's hint is the prompt's and Slack's syntax; in the shell the command is said.
    if (!words.join(' ').trim() && isWorkflow(workflows, workflow))
      return `Describe the task after the workflow's name: ${startLine(cli, workflow.toLowerCase(), '"summarise Q3 invoices"')}`;
  }
  if (
    command === 'rules' &&
    rest.length &&
    (!['approve', 'reject', 'revoke'].includes(rest[0] ?? '') || !/^\d+$/.test(rest[1] ?? ''))
  )
    return `usage: ${cli}rules [approve|reject|revoke <number>] (see: ${cli}rules)`;
  if (command === 'docs' && (rest[0] !== 'add' || !rest[1]))
    return `usage: ${cli}docs add <folder> [collection]`;
  return undefined;
}

/** The hint for a command without its task id, with the command's own name in the example. */
export const nameTheTask = (command: string, cli = SHELL) =>
  `Name the task, e.g. ${cli}${command} cli-1a2b3c4d${command === 'redirect' ? ' <goal…>' : ''} (see: ${cli}tasks).`;

/**
 * A command that takes one task id given more words: refused whole, nothing done, with the command
 * that works (each command, when the words after the id are task ids too).
 */
function oneTaskId(command: string, [id, ...after]: readonly string[], cli: string): string {
  const said = `${cli}${command} takes one task id`;
  if (after.every(looksLikeTaskId))
    return `${said} at a time, so nothing was done: ${[id, ...after].map((t) => `${cli}${command} ${t}`).join(', then ')}`;
  return `${said} and nothing after it (not "${after.join(' ')}"), so nothing was done: ${cli}${command} ${id}`;
}

/**
 * A word that names a task: `cli-1a2b3c4d`, `slack-C0123ABC-1700000000.000100` (a surface, a dash,
 * the rest). Only the surfaces' own prefixes (the engine's SURFACES, not imported: the shell's
 * usage is checked before the engine loads): `follow-up` or `extra-words` are words, not tasks.
 */
const TASK_ID = /^(cli|slack)-[\w.-]+$/i;
export const looksLikeTaskId = (word: string | undefined) => TASK_ID.test(word ?? '');

/**
 * `tasks` with words after it: it takes none. A task id there meant that one task, which `events`
 * shows; any other word (`--all`) is said to be not taken, with what `tasks` lists instead.
 */
function tasksTakeNothing(rest: readonly string[], cli: string): string {
  const [first] = rest;
  if (looksLikeTaskId(first))
    return `${cli}tasks lists every task and takes no task id. One task, all it showed: ${cli}events ${first}`;
  return `${cli}tasks takes nothing after it (not "${rest.join(' ')}"): it lists the ${TASKS_LISTED} tasks updated last, with their status.`;
}

/** Workflow names are lowercase (the config file allows no other), so "Pair" can only mean pair. */
export const isWorkflow = (workflows: readonly string[], name: string) =>
  workflows.includes(name.toLowerCase());

/** Other words for the commands, as other tools (and Slack's `/signoff list`) name them. */
const SAME_AS: Record<string, string> = {
  list: 'tasks',
  ls: 'tasks',
  status: 'tasks',
  start: 'run',
  new: 'run',
  continue: 'resume',
  stop: 'cancel',
  rerun: 'retry',
  log: 'events',
  version: '--version',
};

/** Whether `word` is another name for a command (`status`, `ls`): usageError says which one is meant. */
export const isOtherName = (word: string) => Object.hasOwn(SAME_AS, word.toLowerCase());

/** An unknown command, and the one meant when it can be told: `list` is `tasks`, `pair …` is `run pair …`. */
function unknownCommand(
  workflows: readonly string[],
  command: string,
  rest: string[],
  cli: string,
): string | undefined {
  const said = `Unknown command "${command}".`;
  const meant = SAME_AS[command.toLowerCase()];
  // `status <id>`: that one task, which `tasks` (it takes no words) does not show; `events` does.
  if (meant === 'tasks')
    return `${said} Did you mean: ${cli}${looksLikeTaskId(rest[0]) ? `events ${rest[0]}` : 'tasks'}`;
  if (meant) return `${said} Did you mean: ${cli}${meant}${rest.length ? ` ${rest.join(' ')}` : ''}`;
  if (isWorkflow(workflows, command)) {
    // The words as `run` would read them after the workflow: a `--` that ends options is dropped.
    const words = commandWords(['run', command, ...rest]).slice(2);
    // A first word that looks like an option goes after `--`, which `run` needs to take it as the task's.
    if (looksLikeOption(words[0] ?? ''))
      return `${said} To start a task: ${cli}run ${command.toLowerCase()} -- ${words.join(' ')}`;
    const task = words.join(' ') || 'summarise Q3 invoices';
    return `${said} To start a task: ${startLine(cli, command.toLowerCase(), `"${task}"`)}`;
  }
  return undefined;
}
