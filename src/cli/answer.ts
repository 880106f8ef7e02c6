import type { Action, Review } from '../engine/types.js';

const APPROVE = new Set(['', 'approve', 'a', 'yes', 'y', 'ok', 'lgtm', 'accept', 'continue']);
const REJECT = new Set(['reject', 'r', 'no', 'n']);

/** A decision to send the engine. */
export type Decided = { action: Action; feedback?: string; values?: Record<string, string> };

export type Answer =
  | Decided
  /** Edit through the review's form, asked field by field (several calls: a decision for each). */
  | { form: true }
  | { error: string };

/**
 * One typed line → a decision: Enter/approve, reject, or other text = revise with it. At a review
 * of tool calls there are no words for the agent (unless it takes a response): a line of JSON is
 * the one call's edited arguments, and "edit" asks the form field by field.
 */
export function parseAnswer(line: string, review: Review): Answer {
  const text = line.trim();
  const word = text.toLowerCase();
  const allowed = review.request.actions;
  const pick = (action: Action, feedback?: string) =>
    allowed.includes(action)
      ? { action, feedback }
      : { error: `"${action}" is not possible here; choose: ${allowed.join(', ')}.` };
  if (APPROVE.has(word)) return pick('approve');
  if (REJECT.has(word)) return pick('reject');
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
