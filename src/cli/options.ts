/**
 * Options in a command's words. The commands that take a task's words or a task id take no
 * options, so a word such as `--verbose` after `run pair` was never an option: taken as the task's
 * text it started a task nobody meant ("--verbose", exit 0). It is refused instead, and `--` ends
 * the options as in any Unix command, so a task whose words do begin with a dash can still be
 * started: `run pair -- --verbose`. A quoted task that merely holds a dash ("write about --force
 * flags") is one word with spaces in it, never an option.
 */
import { CLI } from './help.js';

export const END_OF_OPTIONS = '--';

/** The commands whose words are ids, a folder or a task's text: none of them takes an option. */
const TAKES_NONE = new Set(['run', 'resume', 'events', 'retry', 'cancel', 'redirect', 'docs']);

/**
 * A word as a shell user types an option: a dash, then no space. A lone `-` is no option (it is a
 * word), nor is a word with spaces, which only quotes can make: that is text.
 */
export const looksLikeOption = (word: string) => word !== END_OF_OPTIONS && /^-\S+$/.test(word);

/** The words before `--`: where an option (`--help` too) can be. */
export const optionsPart = (argv: readonly string[]): readonly string[] => {
  const end = argv.indexOf(END_OF_OPTIONS);
  return end < 0 ? argv : argv.slice(0, end);
};

/**
 * `argv` as a command reads it: the first `--` after a command that takes no options is dropped,
 * the words after it kept as they are. (audit reads its own, with Node's parseArgs.)
 */
export function commandWords(argv: readonly string[]): string[] {
  const [command, ...rest] = argv;
  if (command === undefined || !TAKES_NONE.has(command)) return [...argv];
  const end = rest.indexOf(END_OF_OPTIONS);
  return end < 0 ? [...argv] : [command, ...rest.slice(0, end), ...rest.slice(end + 1)];
}

/**
 * The sentence refusing the first option given to a command that takes none, with the command as
 * it would work; undefined when there is none.
 */
export function unknownOption(argv: readonly string[]): string | undefined {
  const [command, ...rest] = argv;
  if (command === undefined || !TAKES_NONE.has(command)) return undefined;
  const option = optionsPart(rest).find(looksLikeOption);
  if (option === undefined) return undefined;
  const said = `"${option}" is not an option of ${command === 'docs' ? 'docs add' : command} (it takes none`;
  // The words without `--`, in their order: the first one that is no option names the workflow
  // (or the task), the rest are what the person typed after it.
  const words = rest.filter((w) => w !== END_OF_OPTIONS);
  const first = words.find((w) => !looksLikeOption(w));
  const after = first === undefined ? words : words.filter((_, i) => i !== words.indexOf(first));
  if (command === 'run') {
    if (first === undefined) return `${said}): ${CLI} run <workflow> <task…>`;
    return `${said}; settings come from the environment and the config file): to make it part of the task, put -- before the task's words: ${CLI} run ${first.toLowerCase()} -- ${after.map(quoted).join(' ')}`;
  }
  if (command === 'redirect') {
    if (first === undefined) return `${said}): ${CLI} redirect <task-id> <goal…>`;
    return `${said}): to make it part of the new goal, put -- before the goal's words: ${CLI} redirect ${first} -- ${after.map(quoted).join(' ')}`;
  }
  if (command === 'docs') return `${said}): ${CLI} docs add <folder> [collection]`;
  return `${said}): ${CLI} ${command} ${first ?? '<task-id>'}`;
}

/** A word as a shell reads it back: double-quoted when it holds anything but plain characters. */
const quoted = (word: string) =>
  /^[\w./@%+=:,-]+$/.test(word) ? word : `"${word.replace(/["\\$`]/g, '\\$&')}"`;
