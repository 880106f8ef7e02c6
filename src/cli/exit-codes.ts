/**
 * One rule for every command's exit code, as the README's terminal section states it, so that a
 * script can tell what went wrong without reading the sentence:
 *   0  done (what was asked was done; a list or an export that matched nothing is done too)
 *   1  could not do what was asked: the words were right, but the task, review or rule is in a
 *      state that does not allow it, the person may not, or there was nothing to do it with (or
 *      only a file that cannot be used)
 *   2  bad usage: the words (or the configuration) name nothing or miss something: an unknown
 *      command, workflow, task id, rule or folder, a missing or malformed argument
 *   3  the task the command followed ended failed (TASK_FAILED)
 */
import type { ErrorCode } from '../errors.js';

export const EXIT_COULD_NOT = 1;
export const EXIT_USAGE = 2;

/** Codes that refuse what was asked of something that exists: 1. Every other code is 2. */
const COULD_NOT: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'task_not_waiting',
  'task_not_working',
  'review_not_pending',
  'rule_closed',
  'not_allowed',
  'counted_already',
  'stale_review',
  'too_many_tasks',
  'still_starting',
  // `docs add` of a folder holding a file that is not UTF-8 text: the folder was named rightly,
  // as one with no .md or .txt file (also 1), but what is in it cannot be used.
  'unusable_file',
]);

/** The exit code of a command refused with `code`. */
export const exitCodeOf = (code: ErrorCode): number => (COULD_NOT.has(code) ? EXIT_COULD_NOT : EXIT_USAGE);
