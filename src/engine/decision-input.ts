/**
 * What a decision may say on a review, whoever sends it: an action the review offers (never words
 * for a tool call), words within the checkpoint's limits and not among those it refuses, an edit
 * the review's form takes.
 */

import { refusedRevise } from '../workflows/protocol/refused-words.js';
import { invalidEdit } from '../workflows/protocol/review-form.js';
import { invalidToolDecision } from '../workflows/protocol/standard-interrupts.js';
import type { DecideInput } from './api.js';
import type { Review } from './types.js';

/**
 * Why `input` cannot decide `review`, in a sentence for the person; undefined when it can. Also
 * asked by a form before it closes (Slack's Revise modal), so the person fixes their words there.
 */
export function invalidDecision(
  review: Review,
  input: Pick<DecideInput, 'action' | 'feedback' | 'values'>,
): string | undefined {
  // Words never stand for a tool call's decision, whatever the review lists.
  const tool = invalidToolDecision(review.request, input.action);
  if (tool) return tool;
  if (!review.request.actions.includes(input.action)) {
    return `"${input.action}" is not possible here; choose ${review.request.actions.join(', ')}.`;
  }
  // Whatever the action: a reject's reason or an edit's note is recorded, audited and sent to
  // the agents like a revise's feedback, and a decision the workflow cannot read is never
  // resumed (reviewAsker would refuse it and ask the same question again).
  const feedback = input.feedback?.trim() ?? '';
  const { minLength, maxLength } = review.settings.feedback;
  if (feedback.length > maxLength) {
    return `Nothing was recorded: your message is ${count(feedback.length)} characters, and this review takes at most ${count(maxLength)}. Shorten it and try again.`;
  }
  if (input.action === 'edit') {
    const errors = [...new Set(Object.values(invalidEdit(review.request, input.values ?? {})))];
    return errors.length ? errors.join(' ') : undefined;
  }
  if (input.action === 'revise' && feedback.length === 0)
    return 'Say what should change: the feedback is empty.';
  if (input.action === 'revise' && feedback.length < minLength)
    return `Nothing was recorded: your message is ${count(feedback.length)} characters, and this review takes at least ${count(minLength)}. Say more and try again.`;
  return input.action === 'revise' ? refusedRevise(review.request, feedback) : undefined;
}

const count = (n: number) => n.toLocaleString('en-US');
