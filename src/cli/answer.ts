import type { Action, Review } from '../engine/types.js';

const APPROVE = new Set(['', 'approve', 'a', 'yes', 'y', 'ok', 'lgtm', 'accept', 'continue']);
const REJECT = new Set(['reject', 'r', 'no', 'n']);

/**
 * One typed line → a decision: Enter/approve, reject, or any other text = revise with it. At a
 * review with a form (a tool call's arguments) the revision is the edited arguments as JSON.
 */
export function parseAnswer(
  line: string,
  review: Review,
): { action: Action; feedback?: string; values?: Record<string, string> } | { error: string } {
  const text = line.trim();
  const word = text.toLowerCase();
  const allowed = review.request.actions;
  const pick = (action: Action, feedback?: string) =>
    allowed.includes(action)
      ? { action, feedback }
      : { error: `"${action}" is not possible here; choose: ${allowed.join(', ')}.` };
  if (APPROVE.has(word)) return pick('approve');
  if (REJECT.has(word)) return pick('reject');
  const field = review.request.fields[0];
  if (field) {
    if (!text.startsWith('{'))
      return {
        error: `Type the edited arguments as one line of JSON, such as ${field.initial?.replace(/\s*\n\s*/g, ' ')}.`,
      };
    return { ...pick('revise'), values: { [field.id]: text } };
  }
  return pick('revise', text);
}
