/**
 * What `signoff help` prints, and how every hint names the command. Light on purpose: help
 * answers before anything else is loaded or started (no database, no model, no Slack).
 */
import { relative } from 'node:path';
import { type WorkflowsConfig, workflowSettings } from '../config/workflows.js';
import { BUILT_IN_DESCRIPTIONS, ownWorkflowDescription } from '../workflows/catalog.js';

/** The command as the README types it in a checkout; every hint the terminal prints uses it. */
export const CLI = 'npx signoff';

/**
 * The words before a command in a hint, as it is typed where the hint is read: `npx signoff ` in the
 * shell; none at the interactive prompt, where `events cli-…` and `pair <task>` are typed as they are.
 */
export const SHELL = `${CLI} `;
export const AT_THE_PROMPT = '';

/**
 * The command as a hint that continues a task names it: with a config file, the file too, since a
 * task of a workflow declared there is refused by a run that did not load it.
 */
export const commandWith = (configPath: string | undefined): string =>
  configPath ? `SIGNOFF_CONFIG=${shellWord(shortPath(configPath))} ${CLI}` : CLI;

/** A path as a shell reads it back: quoted when it holds anything but plain path characters. */
const shellWord = (path: string) =>
  /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;

/** Relative to here when it lies below; else as it is (a path up and out reads worse than whole). */
const shortPath = (path: string) => {
  const near = relative(process.cwd(), path);
  return near && !near.startsWith('..') ? near : path;
};

/** How many tasks `signoff tasks` lists: those updated last. */
export const TASKS_LISTED = 50;

export const USAGE = `usage:
  ${CLI} run <workflow> <task…>   start a task and review it here
  ${CLI} resume <task-id>         continue a task waiting for review
  ${CLI} tasks                    list tasks and their status
  ${CLI} events <task-id>         what the task showed or could not show, in order, in full
  ${CLI} audit [<task-id>] [--since 7d] [--format jsonl|csv]  every attempt and decision, for an auditor
  ${CLI} rules [approve|reject|revoke <n>]  standing rules ("always" at a review proposes one)
  ${CLI} retry <task-id>          run a failed task again
  ${CLI} cancel <task-id>         cancel a task
  ${CLI} redirect <task-id> <goal…>  stop what the agents are doing; start over on a new goal
  ${CLI} docs add <folder> [collection]  add (or update) a folder's .md and .txt files (collection: docs)
  ${CLI} test <workflow> --scenario <file.yml>  run a scripted scenario offline and check it
  ${CLI} mcp [--client <name>]    an MCP server on stdio: request_signoff asks the team in Slack
  ${CLI}                          choose a workflow and describe a task interactively
  ${CLI} --version                the version of signoff`;

export interface WorkflowInWords {
  name: string;
  description: string;
}

/** One workflow a line, names aligned. */
export const workflowLines = (workflows: WorkflowInWords[]) => {
  const width = Math.max(10, ...workflows.map((w) => w.name.length)) + 2;
  return workflows.map((w) => `  ${w.name.padEnd(width)}${w.description}`).join('\n');
};

/**
 * The workflows the config file leaves on, as the engine will offer them (built-in, then modules,
 * then remote graphs, then declared ones), described from the config file without loading any of them.
 */
export function configuredWorkflows(config: WorkflowsConfig): WorkflowInWords[] {
  const own = Object.entries(config.workflows).filter(([, w]) => w.module || w.stages || w.remote);
  return [
    // A built-in the file redefines (stages, a module or a remote graph) is listed once, as redefined.
    ...Object.entries(BUILT_IN_DESCRIPTIONS).filter(([name]) => !own.some(([n]) => n === name)),
    ...own.filter(([, w]) => w.module).map(([name, w]) => [name, ownWorkflowDescription(name, w)] as const),
    ...own.filter(([, w]) => w.remote).map(([name, w]) => [name, ownWorkflowDescription(name, w)] as const),
    ...own
      .filter(([, w]) => !w.module && !w.remote)
      .map(([name, w]) => [name, ownWorkflowDescription(name, w)] as const),
  ]
    .filter(([name]) => workflowSettings(config, name).enabled)
    .map(([name, description]) => ({
      name,
      description: workflowSettings(config, name).description ?? description,
    }));
}

export const helpText = (workflows: WorkflowInWords[]) =>
  `${USAGE}\n\nworkflows:\n${workflowLines(workflows)}\n`;
