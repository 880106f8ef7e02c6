/**
 * A review's choices as the terminal says them, in the review's own words (its labels: "accept
 * goal", "refine"): under its card, and when a typed word is not one of them.
 */
import type { Review } from '../engine/index.js';

/** "The query to search instead" → "the query to search instead" within a sentence ("SQL" stays). */
export const lowerFirst = (text: string) =>
  /^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text;

export function choicesOf(review: Review): string {
  const r = review.request;
  const word = (action: keyof typeof r.labels, fallback: string) =>
    (r.labels[action] ?? fallback).toLowerCase();
  return [
    r.actions.includes('approve')
      ? // A tool call goes ahead on the typed word only (cli/answer.ts).
        `${r.origin ? '' : 'Enter or '}"approve" to ${word('approve', 'approve')}`
      : undefined,
    r.actions.includes('edit')
      ? r.fields.length === 1 && !r.fields[0]?.choices
        ? `type the arguments as one line of JSON to ${word('edit', 'edit')} (that approves them)`
        : `"edit" to ${word('edit', 'edit')}`
      : undefined,
    r.actions.includes('revise')
      ? r.feedbackLabel
        ? `type ${lowerFirst(r.feedbackLabel)}`
        : `type feedback to ${word('revise', 'revise')}`
      : undefined,
    r.actions.includes('reject') ? `"reject" to ${word('reject', 'reject')}` : undefined,
    // Where the config file sets alwaysAllow (the review keeps it): approve and propose a rule.
    r.actions.includes('approve') && review.settings.alwaysAllow
      ? '"always" to approve and always allow'
      : undefined,
  ]
    .filter(Boolean)
    .join(', ');
}
