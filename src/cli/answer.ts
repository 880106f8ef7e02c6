import { type Action, type Review, sameJsonText } from '../engine/index.js';
import {
  argumentsField,
  choicesOf,
  lowerFirst,
  mustChange,
  mustChangeSentence,
  wordsDoNotChange,
} from './choices.js';
import { plain as bare, readsLikeCommand } from './command-lines.js';

/**
 * Exactly these (case aside) approve, as the card and `help` show them: Enter too, except at a tool
 * call. A shortcut shown nowhere ("a", "accept") is asked about; the card's own word for an action
 * ("Continue", "Accept goal") chooses it below.
 */
const APPROVE = new Set(['', 'approve']);
const REJECT = new Set(['reject']);
/**
 * Lines that read like an approval or a rejection but are not one of the choices: taken as
 * feedback they would start another round, taken as a decision they would be a guess. The person
 * is asked what they meant instead. Compared without case, trailing punctuation or extra spaces,
 * so "Approve." and "approve!" are asked about too: only the plain word decides.
 */
const LIKE_APPROVE = new Set([
  'a',
  'approve',
  'approved',
  'accept',
  'accepted',
  'continue',
  'y',
  'yes',
  'yep',
  'yeah',
  'ok',
  'okay',
  'k',
  'kk',
  'lgtm',
  'sure',
  'done',
  'good',
  'fine',
  'great',
  'perfect',
  'looks good',
  'looks fine',
  'looks great',
  'sounds good',
  'all good',
  'go',
  'go ahead',
  'ship it',
  '👍',
]);
const LIKE_REJECT = new Set([
  'r',
  'reject',
  'rejected',
  'decline',
  'declined',
  'deny',
  'denied',
  'n',
  'no',
  'nope',
  'nah',
  '👎',
]);
const HELP = new Set(['help', '?']);
const QUIT = new Set(['quit', 'exit', 'q']);
const CANCEL = new Set(['cancel', 'stop']);
/** `reject: <why>` rejects with its reason (for a tool call, the message the agent gets). */
const REJECT_WITH = /^reject\s*:\s*(.*)$/is;
/** `revise: <feedback>` (or the review's own word for it: `refine: …`) is feedback, whatever it says. */
const WITH_WORDS = /^([a-z][a-z ]*?)\s*:\s*(.*)$/is;

/** A decision to send the engine. */
export type Decided = { action: Action; feedback?: string; values?: Record<string, string> };

export type Answer =
  | Decided
  /** Edit through the review's form, asked field by field (several calls: a decision for each). */
  | { form: true }
  /** Revise was chosen without its words: the next line is the feedback. */
  | { feedback: true }
  /** What can be typed at this review. */
  | { help: true }
  /** Leave the prompt as at end of input: the task keeps waiting. */
  | { quit: true }
  /** Cancel the task, once confirmed. */
  | { cancel: true }
  /** Approve, and propose a rule that approves what this covers from now on (always-allow.ts). */
  | { always: true }
  | { error: string };

/**
 * The words that, typed alone, choose each of this review's actions: its name, and the card's own
 * word for it ("search more" for a proposal's reject, "refine the gap" for its revise). At a tool
 * call only the word "approve" approves, never a label. `parseAnswer` matches these and `help`
 * lists these: one source, so help never leaves out a word that works, nor lists one that does not.
 */
export function choiceWords(review: Review): Record<'approve' | 'reject' | 'revise' | 'edit', string[]> {
  const r = review.request;
  const of = (action: Action, labelled = true) => {
    if (!r.actions.includes(action)) return [];
    const label = r.labels[action]?.toLowerCase().replace(/\s+/g, ' ').trim();
    return [action, ...(labelled && label && label !== action ? [label] : [])];
  };
  return {
    approve: of('approve', r.origin === undefined),
    reject: of('reject'),
    revise: of('revise'),
    edit: of('edit'),
  };
}

/** What Revise's words are, as a placeholder: "feedback", or the review's own ("the query to search instead"). */
const typed = (review: Review) =>
  review.request.feedbackLabel ? lowerFirst(review.request.feedbackLabel) : 'feedback';

/** Whether the line leaves the prompt it is typed at (a review's, or the interactive one). */
export const isQuit = (line: string) => QUIT.has(bare(line));

/** Whether the line asks what can be typed, at a review or at the interactive prompt. */
export const isHelp = (line: string) => HELP.has(line.trim().toLowerCase());

/**
 * One typed line → a decision: Enter/approve, reject (`reject: why` with its reason), feedback
 * (`revise: …`, or any other text) = revise with it; a line that reads like an approval or a
 * rejection without being the word ("approved", "Approve.", "lgtm", "no") is asked about, never
 * guessed at. `help`, `quit` and `cancel` are the prompt's own. At a review of tool calls there are
 * no words for the agent (unless it takes a response): a line of JSON is the one call's edited
 * arguments, "edit" asks the form field by field, and only the word "approve" approves (Enter
 * alone, or a "y", is too easily typed by accident to run a tool).
 */
export function parseAnswer(line: string, review: Review, workflows: readonly string[] = []): Answer {
  const text = line.trim();
  const word = text.toLowerCase();
  const plain = bare(text);
  const r = review.request;
  const allowed = r.actions;
  const pick = (action: Action, feedback?: string) =>
    allowed.includes(action)
      ? { action, feedback }
      : { error: `"${action}" is not possible here: ${choicesOf(review)}.` };
  const toolCall = r.origin !== undefined;
  if (isHelp(text)) return { help: true };
  if (QUIT.has(plain)) return { quit: true };
  if (CANCEL.has(plain)) return { cancel: true };
  if (plain === 'always' && r.actions.includes('approve')) return { always: true };
  // A call that may not go ahead as asked: Enter, "approve" (or "y") is met by how to change it.
  if (mustChange(review) && (APPROVE.has(word) || LIKE_APPROVE.has(plain) || misspelt(plain) === 'approve'))
    return { error: mustChangeSentence(review) };
  if (toolCall && word !== 'approve' && APPROVE.has(word)) {
    return {
      error: `A tool call is approved by the word only: type ${choices(review, ['approve', 'reject']) || 'one of the choices above'}.`,
    };
  }
  if (APPROVE.has(word)) return pick('approve');
  if (REJECT.has(word)) return pick('reject');
  const rejectWith = REJECT_WITH.exec(text);
  if (rejectWith) {
    const why = rejectWith[1]?.trim();
    if (why) return pick('reject', why);
    return { error: 'Type the reason after "reject:", or "reject" alone to reject without one.' };
  }
  const words = choiceWords(review);
  const revise = words.revise;
  // `revise: <feedback>`: the words after the colon are the feedback, even one that reads like a choice.
  const withWords = WITH_WORDS.exec(text);
  if (withWords && revise.includes(bare(withWords[1] ?? ''))) {
    const feedback = withWords[2]?.trim();
    return feedback ? { action: 'revise', feedback } : { feedback: true };
  }
  // The action's name alone ("revise", or its label: "refine", "modify") chooses it: the words
  // that should go with it are asked for next, not that word sent as the feedback.
  if (revise.includes(plain)) return { feedback: true };
  // The card's own words for the other choices ("Search more", "Give up", "Continue") choose
  // them too; at a tool call only the word "approve" approves, never a label.
  // Typed as shown, without punctuation: "Reject." is asked about like "Approve." is.
  const spaced = word.replace(/\s+/g, ' ');
  if (words.reject.includes(spaced)) return { action: 'reject' };
  if (words.approve.includes(spaced)) return { action: 'approve' };
  // The first word of a choice the card names in several ("search" for "Search more") is that
  // choice half typed, not the words to revise with: asked about, never sent.
  const halfTyped = [...words.approve, ...words.reject].find(
    (w) => w.includes(' ') && w.split(' ')[0] === plain,
  );
  if (halfTyped)
    return {
      error: `Did you mean "${halfTyped}"? Type it whole${allowed.includes('revise') ? `, or "revise: ${text}" to ${verb(review, 'revise')} with these words` : ''}. ("help" lists every choice.)`,
    };
  // A misspelt choice ("aprove", "rejcet") is a typo, never feedback: a revise may end the task.
  const typo = misspelt(plain);
  if (LIKE_APPROVE.has(plain) || LIKE_REJECT.has(plain) || typo) {
    const meant: Action = typo ?? (LIKE_APPROVE.has(plain) ? 'approve' : 'reject');
    const feedback = allowed.includes('revise')
      ? [`"revise: <${typed(review)}>" to ${verb(review, 'revise')}`]
      : [];
    if (!allowed.includes(meant)) {
      return { error: `"${text}" is not one of the choices: type ${choices(review)}.` };
    }
    const how = meant === 'approve' ? `"approve" to ${verb(review, 'approve')}` : rejectChoice(review);
    return {
      error: `Did you mean ${meant}? Type ${[how, ...feedback].join(', or ')}. ("help" lists every choice.)`,
    };
  }
  if (allowed.includes('edit')) {
    const only = argumentsField(review);
    if (words.edit.includes(plain)) return { form: true };
    if (only && text.startsWith('{')) {
      // The arguments as shown, typed again (in any key order), change nothing: no edit, no approval.
      if (sameJsonText(text, only.initial ?? ''))
        return {
          error: `Those are the arguments as shown; nothing changed. ${mustChange(review) ? mustChangeSentence(review) : `Type ${choices(review, ['approve', 'reject'])}.`}`,
        };
      return { action: 'edit', values: { [only.id]: text } };
    }
  }
  // Words are no answer to a tool call, unless it takes a response (Agent Inbox's allow_respond).
  if (toolCall && !allowed.includes('revise')) return { error: wordsDoNotChange(review, text) };
  if (allowed.includes('revise') && readsLikeCommand(text, workflows)) {
    return {
      error: `"${text}" reads like a command, not an answer to this review: answer the review first ("help" lists the choices), or type "quit" to leave it waiting, then run the command. To send it as feedback, type "revise: ${text}".`,
    };
  }
  return pick('revise', text);
}

/**
 * The line typed after `revise` alone: the feedback, or (an empty line, `quit`) back to the review.
 * Never a decision: a line that is no feedback ("approve", a command) is said to be none and the
 * feedback asked `again`, so that the Enter typed next only goes back, never approves.
 */
export function parseFeedback(
  line: string,
  review: Review,
  /** The configured workflows' names: `pair` typed here is a command, as at the review. */
  workflows: readonly string[] = [],
): { action: 'revise'; feedback: string } | { again: string } | { back: string } {
  const text = line.trim();
  if (!text) return { back: 'No feedback typed; nothing was sent. Back to the review.' };
  if (isQuit(text)) return { back: 'Nothing was sent. Back to the review.' };
  const answer = parseAnswer(text, review, workflows);
  if ('action' in answer && answer.action === 'revise' && answer.feedback)
    return { action: 'revise', feedback: answer.feedback };
  if ('feedback' in answer && answer.feedback === true)
    return { again: 'Type the feedback itself (what should change), or an empty line to go back.' };
  const what = readsLikeCommand(text, workflows)
    ? 'reads like a command, not feedback'
    : "reads as one of the review's choices, not as feedback";
  return {
    again: `"${text}" ${what}; nothing was sent. Type ${review.request.feedbackLabel ? typed(review) : 'the feedback'}, "revise: ${text}" to send it as is, or Enter to go back to the review.`,
  };
}

/** The action as the card names it: "search more" for a proposal's reject. */
export const verb = (review: Review, action: Action) =>
  (review.request.labels[action] ?? action).toLowerCase();

const rejectChoice = (review: Review) => `"reject" (or "reject: why") to ${verb(review, 'reject')}`;

/** The ways to answer this review, as a sentence's list; `only` keeps some of them. */
function choices(review: Review, only?: Action[]): string {
  const r = review.request;
  const toolCall = r.origin !== undefined;
  const has = (a: Action) => r.actions.includes(a) && (!only || only.includes(a));
  return [
    ...(has('approve') ? [`${toolCall ? '' : 'Enter or '}"approve" to ${verb(review, 'approve')}`] : []),
    ...(has('reject') ? [rejectChoice(review)] : []),
    ...(has('revise') ? [`a sentence of feedback to ${verb(review, 'revise')}`] : []),
    ...(has('edit') ? [`"edit" to ${verb(review, 'edit')}`] : []),
  ].join(', or ');
}

/**
 * The words that do one thing, as a help row names them: "reject / search more". A slash, not "or":
 * a card's word may hold an "or" of its own ("edit or decide each").
 */
const orList = (words: string[]) => words.join(' / ');

/**
 * Every line that can be typed at this review, one a line: what `help` prints there. The words
 * come from `choiceWords` and the prompt's own sets, as `parseAnswer` reads them.
 */
export function answerHelp(review: Review, resume: string, always = false): string {
  const r = review.request;
  const toolCall = r.origin !== undefined;
  const words = choiceWords(review);
  const only = r.fields.length === 1 && !r.fields[0]?.choices;
  const [revise = 'revise', ...otherRevise] = words.revise;
  const rows: [string, string][] = [
    ...(words.approve.length
      ? [
          [orList([...(toolCall ? [] : ['Enter']), ...words.approve]), verb(review, 'approve')] as [
            string,
            string,
          ],
        ]
      : []),
    ...(words.reject.length
      ? [
          [orList(words.reject), verb(review, 'reject')] as [string, string],
          ['reject: <why>', `${verb(review, 'reject')}, saying why`] as [string, string],
        ]
      : []),
    ...(words.revise.length
      ? [
          [
            `${revise}: <${typed(review)}>`,
            `${verb(review, 'revise')} (a sentence works too${otherRevise.map((w) => `, and "${w}: …"`).join('')})`,
          ] as [string, string],
          [
            orList(words.revise),
            `asks for ${review.request.feedbackLabel ? typed(review) : 'the feedback'} on the next line`,
          ] as [string, string],
        ]
      : []),
    ...(words.edit.length && only
      ? [['{…} (one line of JSON)', 'the edited arguments (that approves them)'] as [string, string]]
      : []),
    ...(words.edit.length
      ? [
          [
            orList(words.edit),
            only
              ? 'asks for the edited arguments on the next line'
              : `${verb(review, 'edit')}, field by field`,
          ] as [string, string],
        ]
      : []),
    // Where the config file names who signs rules off (and the review may be always allowed).
    ...(words.approve.length && always
      ? [
          ['always', 'approve, and propose a rule that approves what this covers from now on'] as [
            string,
            string,
          ],
        ]
      : []),
    [orList([...QUIT]), `leave this prompt; the task keeps waiting: ${resume}`],
    [orList([...CANCEL]), 'cancel the task (asks first)'],
    [orList([...HELP]), 'this list'],
  ];
  const width = Math.max(...rows.map(([typed]) => typed.length)) + 2;
  return `At this review, type:\n${rows.map(([typed, does]) => `  ${typed.padEnd(width)}${does}`).join('\n')}\n`;
}

/** A single word one or two letters from "approve" or "reject": the choice it misspells. */
function misspelt(word: string): 'approve' | 'reject' | undefined {
  if (word.length < 4 || /\s/.test(word)) return undefined;
  for (const choice of ['approve', 'reject'] as const) if (distance(word, choice) <= 2) return choice;
  return undefined;
}

/** Levenshtein distance (a swap of two letters counts two). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    row = next;
  }
  return row[b.length] ?? 0;
}
