import { interrupt } from '@langchain/langgraph';
import { type Decision, decisionSchema, type ReviewRequestInput, reviewRequestSchema } from './protocol.js';

/**
 * Pauses the graph for a person. Returns their decision; a malformed resume value is treated
 * as approval (seed 002's "default safe behaviour") and says so in `automatic`.
 * Code before this call runs again on resume: keep side effects after it.
 */
export function askReview(request: ReviewRequestInput): Decision {
  const value = interrupt(reviewRequestSchema.parse(request));
  const parsed = decisionSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  return {
    action: 'approve',
    values: {},
    by: 'signoff',
    at: new Date().toISOString(),
    automatic: 'malformed response',
  };
}
