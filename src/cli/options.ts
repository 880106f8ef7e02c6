/**
 * Options in a command's words. The commands that take a task's words or a task id take no
 * options, so a word such as `--verbose` after `run pair` was never an option: taken as the task's
 * text it started a task nobody meant ("--verbose", exit 0). It is refused instead. As POSIX reads
 * options, a word is one only where options can be (before the task's first word) and only if it
 * looks like one (a dash or two, a letter): `run pair fix the -v flag`, `cut costs by -5%` and
 * `compare -> B` are tasks, and `events -1` is an id. `--` there ends the options, as in any Unix
 * command, so a task whose first word does begin with a dash can still be started
 * (`run pair -- --verbose`); a `--` among the task's words is the task's.
 */
import { SHELL } from './help.js';

export const END_OF_OPTIONS = '--';

/** The commands whose words are ids, a folder or a task's text: none of them takes an option. */
const TAKES_NONE = new Set(['run', 'resume', 'events', 'retry', 'cancel', 'redirect', 'docs']);
/**
 * The words before a command's text: run's workflow, redirect's task id. The others take ids (and
 * docs a folder) only, so an option can be anywhere in them.
 */
const BEFORE_TEXT: Record<string, number> = { run: 1, redirect: 1 };

/** A word as a shell user types an option: `-v`, `--model`, `--model=x` (never `-5%`, `->`, `-1`). */
export const looksLikeOption = (word: string) => /^--?[A-Za-z][\w-]*(=.*)?$/s.test(word);

/**
 * A command's words after it, read: the ones that stand where options can be and look like one,
 * and the words as the command takes them (the `--` that ended the options dropped).
 */
function read(command: string, rest: readonly string[]): { options: string[]; words: string[] } {
  const before = BEFORE_TEXT[command] ?? Number.POSITIVE_INFINITY;
  const options: string[] = [];
  let named = 0;
  for (const [i, word] of rest.entries()) {
    if (word === END_OF_OPTIONS) return { options, words: [...rest.slice(0, i), ...rest.slice(i + 1)] };
    if (looksLikeOption(word)) options.push(word);
    // The text's first word: from here on every word is the text's, `--` and dashes too.
    else if (++named > before) break;
  }
  return { options, words: [...rest] };
}

/**
 * The words where an option (`--help` too) can be. A command that takes none reads them as above;
 * the others (tasks, audit, rules, mcp) every word before `--`.
 */
export function optionsPart(argv: readonly string[]): readonly string[] {
  const [command, ...rest] = argv;
  if (command !== undefined && TAKES_NONE.has(command)) return read(command, rest).options;
  const end = argv.indexOf(END_OF_OPTIONS);
  return end < 0 ? argv : argv.slice(0, end);
}

/**
 * `argv` as a command reads it: the `--` that ends the options of a command that takes none is
 * dropped, every other word kept as it is. (audit reads its own, with Node's parseArgs.)
 */
export function commandWords(argv: readonly string[]): string[] {
  const [command, ...rest] = argv;
  if (command === undefined || !TAKES_NONE.has(command)) return [...argv];
  return [command, ...read(command, rest).words];
}

/**
 * The sentence refusing the first option given to a command that takes none, with the command as
 * it would work; undefined when there is none.
 */
export function unknownOption(
  argv: readonly string[],
  /** How the hint names a command: SHELL, or AT_THE_PROMPT (help.ts). */
  cli = SHELL,
): string | undefined {
  const [command, ...rest] = argv;
  if (command === undefined || !TAKES_NONE.has(command)) return undefined;
  const { options, words } = read(command, rest);
  const [option] = options;
  if (option === undefined) return undefined;
  const said = `"${option}" is not an option of ${command === 'docs' ? 'docs add' : command} (it takes none`;
  // The first word that is no option names the workflow (or the task), the rest are what the
  // person typed after it, in their order.
  const first = words.find((w) => !looksLikeOption(w));
  const after = first === undefined ? words : words.filter((_, i) => i !== words.indexOf(first));
  if (command === 'run') {
    if (first === undefined) return `${said}): ${cli}run <workflow> <task…>`;
    return `${said}; settings come from the environment and the config file): to make it part of the task, put -- before the task's words: ${cli}run ${first.toLowerCase()} -- ${after.map(quoted).join(' ')}`;
  }
  if (command === 'redirect') {
    if (first === undefined) return `${said}): ${cli}redirect <task-id> <goal…>`;
    return `${said}): to make it part of the new goal, put -- before the goal's words: ${cli}redirect ${first} -- ${after.map(quoted).join(' ')}`;
  }
  if (command === 'docs') return `${said}): ${cli}docs add <folder> [collection]`;
  return `${said}): ${cli}${command} ${first ?? '<task-id>'}`;
}

/** A word as a shell reads it back: double-quoted when it holds anything but plain characters. */
const quoted = (word: string) =>
  /^[\w./@%+=:,-]+$/.test(word) ? word : `"${word.replace(/["\\$`]/g, '\\$&')}"`;
