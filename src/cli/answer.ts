import type { Action, Review } from '../engine/types.js';

const APPROVE = new Set(['', 'approve', 'a', 'yes', 'y', 'ok', 'lgtm', 'accept', 'continue']);
const REJECT = new Set(['reject', 'r', 'no', 'n']);

/** One typed line → a decision: Enter/approve, reject, or any other text = revise with it. */
export function parseAnswer(
  line: string,
  review: Review,
): { action: Action; feedback?: string } | { error: string } {
  const text = line.trim();
  const word = text.toLowerCase();
  const allowed = review.request.actions;
  const pick = (action: Action, feedback?: string) =>
    allowed.includes(action)
      ? { action, feedback }
      : { error: `"${action}" is not possible here; choose: ${allowed.join(', ')}.` };
  if (APPROVE.has(word)) return pick('approve');
  if (REJECT.has(word)) return pick('reject');
  return pick('revise', text);
}
