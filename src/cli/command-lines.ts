/**
 * Lines that read like a command, typed where an answer (or a task) was asked: someone who thinks
 * they are at the shell. Sent as a review's feedback such a line would start another round on words
 * nobody meant; at the workflow prompt it is no workflow. What counts: a command's name alone
 * ("tasks", "resume"), a workflow's name alone ("pair"), `run <workflow> …`, `signoff …` with a
 * command, a workflow or an option after it (or alone), `npx signoff …`, and the shell's own
 * ("npm start", "clear", "git status"). Feedback that only begins with such a word ("run the
 * numbers again", "npm install step is missing", "Signoff rules should…") is feedback. Whatever the
 * case of its letters, a line is a command when it names a workflow (`Run pair …`, `Signoff pair`)
 * or is signoff's command with only what a command takes after it (`Signoff tasks`).
 */
import { looksLikeOption } from './options.js';
import { COMMANDS, looksLikeTaskId } from './usage.js';

const COMMAND_WORDS = new Set([...COMMANDS, 'list', 'ls', 'status']);
/** What `signoff` takes first besides runCommand's commands (bin.ts answers these). */
const SIGNOFF_WORDS = [...COMMANDS, 'help', 'mcp', 'test'];
const SHELL_LINE = new RegExp(
  // Case kept: the shell's words are lower case ("Signoff rules should…" is feedback).
  `^(npx\\s+signoff\\b|signoff$|signoff\\s+(${SIGNOFF_WORDS.join('|')}|-\\S+)\\b|npm\\s+(start|test|install|i|ci|run\\s+\\S+)$|(clear|cls|pwd)$|cd(\\s+\\S+)?$|git\\s+(status|log|diff|show|pull|push|fetch|stash|branch|checkout|switch)(\\s+\\S+)*$)`,
);
/**
 * `run pair …`, `signoff pair …` or `signoff run pair …`: a command only with a workflow's name after
 * it ("run the numbers again" is feedback). Without case, the name as the word before it: `run Pair`
 * starts pair, and a line's first letter is often capitalised for you (`Run pair draft it`).
 */
const WITH_A_WORKFLOW = /^(?:run|signoff(?:\s+run)?)\s+(\S+)/i;
/** Words a signoff command takes besides task ids, numbers and options: `rules approve 4`, `docs add`. */
const ARGUMENT_WORDS = new Set(['approve', 'reject', 'revoke', 'add']);

/**
 * `signoff …` as SHELL_LINE reads it, without case (`Signoff tasks`, `Npx signoff resume cli-…`,
 * capitalised for you as `Run pair` is): `npx signoff` and anything, `signoff` alone, or `signoff`,
 * a command (or an option) and only what a command takes after it, so that a sentence starting
 * with it ("Signoff rules should name the owner") is still feedback.
 */
function signoffAnyCase(part: string): boolean {
  const [first, second, ...more] = plain(part).split(' ');
  if (first === 'npx') return second === 'signoff';
  if (first !== 'signoff') return false;
  if (second === undefined) return true;
  if (!SIGNOFF_WORDS.includes(second) && !looksLikeOption(second)) return false;
  return more.every(
    (word) =>
      looksLikeOption(word) || looksLikeTaskId(word) || /^\d+$/.test(word) || ARGUMENT_WORDS.has(word),
  );
}
/** Where a line holds several commands ("clear; npx signoff resume …"), each is one. */
const COMMAND_SEPARATOR = /\s*(?:;|&&|\|\|)\s*/;

/** A line as compared with the word sets: lower case, no trailing punctuation, single spaces. */
export const plain = (text: string) =>
  text
    .toLowerCase()
    .replace(/[.!?]+$/, '')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * Whether the line reads like a command for the shell, a signoff command's name alone, or (given
 * the configured workflows' names) a workflow named alone or after `run`.
 */
export function readsLikeCommand(line: string, workflows: readonly string[] = []): boolean {
  const bare = plain(line);
  if (COMMAND_WORDS.has(bare) || workflows.includes(bare)) return true;
  return line
    .trim()
    .split(COMMAND_SEPARATOR)
    .some((part) => {
      const named = WITH_A_WORKFLOW.exec(part)?.[1]?.toLowerCase();
      return (
        SHELL_LINE.test(part) || signoffAnyCase(part) || (named !== undefined && workflows.includes(named))
      );
    });
}
