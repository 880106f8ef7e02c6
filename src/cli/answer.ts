import type { Action, Review } from '../engine/index.js';

const APPROVE = new Set(['', 'approve', 'a', 'accept', 'continue']);
const REJECT = new Set(['reject', 'r']);
/**
 * Words that read like a decision but are not one of the choices: taken as feedback they would
 * start another round, taken as a decision they would be a guess. The person is asked instead.
 */
const LIKE_A_DECISION = new Set(['y', 'yes', 'yep', 'ok', 'okay', 'lgtm', 'sure', 'n', 'no', 'nope']);
/** `reject: <why>` rejects with its reason (for a tool call, the message the agent gets). */
const REJECT_WITH = /^reject\s*:\s*(.+)$/is;

/** A decision to send the engine. */
export type Decided = { action: Action; feedback?: string; values?: Record<string, string> };

export type Answer =
  | Decided
  /** Edit through the review's form, asked field by field (several calls: a decision for each). */
  | { form: true }
  | { error: string };

/**
 * One typed line → a decision: Enter/approve, reject (`reject: why` with its reason), or other text
 * = revise with it; a lone "yes", "ok" or "no" is asked about, never guessed at. At a review
 * of tool calls there are no words for the agent (unless it takes a response): a line of JSON is
 * the one call's edited arguments, "edit" asks the form field by field, and only the word
 * "approve" approves (Enter alone, or a "y", is too easily typed by accident to run a tool).
 */
export function parseAnswer(line: string, review: Review): Answer {
  const text = line.trim();
  const word = text.toLowerCase();
  const allowed = review.request.actions;
  const pick = (action: Action, feedback?: string) =>
    allowed.includes(action)
      ? { action, feedback }
      : { error: `"${action}" is not possible here; choose: ${allowed.join(', ')}.` };
  const toolCall = review.request.origin !== undefined;
  if (toolCall && word !== 'approve' && APPROVE.has(word)) {
    const ways = [
      ...(allowed.includes('approve') ? ['"approve" to approve'] : []),
      ...(allowed.includes('reject') ? ['"reject" to reject'] : []),
    ];
    return {
      error: `A tool call is approved by the word only: type ${ways.join(', or ') || 'one of the choices above'}.`,
    };
  }
  if (APPROVE.has(word)) return pick('approve');
  if (REJECT.has(word)) return pick('reject');
  const why = REJECT_WITH.exec(text)?.[1]?.trim();
  if (why) return pick('reject', why);
  if (LIKE_A_DECISION.has(word.replace(/[.!]+$/, ''))) {
    const ways = [
      ...(allowed.includes('approve')
        ? [toolCall ? '"approve" to approve' : 'Enter or "approve" to approve']
        : []),
      ...(allowed.includes('reject') ? ['"reject" (or "reject: why") to reject'] : []),
      ...(allowed.includes('revise') ? ['a sentence of feedback to revise'] : []),
    ];
    return { error: `"${text}" is not one of the choices: type ${ways.join(', ')}.` };
  }
  // The action's name alone ("revise", or its label: "refine", "modify") chooses it: the words
  // that should go with it are asked for, not that word sent as the feedback.
  if (
    allowed.includes('revise') &&
    (word === 'revise' || word === review.request.labels.revise?.toLowerCase())
  )
    return { error: 'Type your feedback (what should change) and press Enter.' };
  if (allowed.includes('edit')) {
    const fields = review.request.fields;
    const only = fields.length === 1 && !fields[0]?.choices ? fields[0] : undefined;
    if (word === 'edit') return { form: true };
    if (only && text.startsWith('{')) return { action: 'edit', values: { [only.id]: text } };
    if (!allowed.includes('revise')) {
      return {
        error: only
          ? `Type the edited arguments as one line of JSON, such as ${only.initial?.replace(/\s*\n\s*/g, ' ')}.`
          : 'Type "edit" to decide each call, or approve or reject them all.',
      };
    }
  }
  return pick('revise', text);
}
