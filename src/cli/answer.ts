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
