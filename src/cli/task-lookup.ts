/**
 * The task a command names, found or refused in a sentence: no id given, no such task, or a task
 * of a workflow this run did not load (its config file is not kept with the task).
 */
import type { Engine, Task } from '../engine/index.js';
import { SignoffError } from '../errors.js';
import { CLI, SHELL } from './help.js';
import { nameTheTask } from './usage.js';

/**
 * The task `id` names, for `command`, whose own name the hint repeats when the id is missing;
 * `cli` is how the hints name a command (help.ts: SHELL, or AT_THE_PROMPT).
 */
export async function existing(engine: Engine, id: string | undefined, command: string, cli = SHELL) {
  if (!id) throw new SignoffError('unknown_task', nameTheTask(command, cli));
  const task = await engine.getTask(id);
  if (!task) throw new SignoffError('unknown_task', `There is no task "${id}". See them with: ${cli}tasks`);
  return task;
}

/**
 * Why `command` cannot go on with `task` here: its workflow came from a config file (or a module
 * named there) that this run did not load, and which file that was is not kept with the task. The
 * command to run is the shell's, wherever it is said: the config file is read when signoff starts.
 */
export function notLoaded(task: Task, command: string, configPath: string | undefined): string {
  const loadedFile = configPath
    ? `this run loaded ${configPath}, which does not have it`
    : 'this run loaded none (SIGNOFF_CONFIG is not set)';
  return `Task ${task.id} runs the workflow "${task.workflow}" from a config file, and ${loadedFile}: nothing was decided. Set SIGNOFF_CONFIG to the file that declares "${task.workflow}" and run it again: SIGNOFF_CONFIG=<file> ${CLI} ${command} ${task.id}`;
}
