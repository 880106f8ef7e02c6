import { interrupt } from '@langchain/langgraph';
import {
  type Decision,
  decisionSchema,
  type ReviewRequestInput,
  reviewRequestSchema,
} from '../protocol/requests.js';
import type { WorkflowDeps } from './types.js';

/** A revise that says nothing: no words and no edited field. Never read as anything else. */
const saysNothing = (d: Decision) =>
  d.action === 'revise' && !d.feedback?.trim() && Object.keys(d.values).length === 0;

/**
 * Pauses the graph for a person; returns their decision. An answer that cannot be read (a
 * malformed resume value, or a revise that says nothing) is refused: logged, and the same
 * question is asked again as a new review. It is never taken for an approval, whatever the
 * checkpoint's `allowSkip` says: that setting lets a timer approve on nobody's behalf (recorded
 * as automatic), not a reject that failed to parse pass as a yes. Code before this call runs
 * again on resume: keep side effects after it.
 */
export function reviewAsker(deps: Pick<WorkflowDeps, 'logger'>) {
  return (request: ReviewRequestInput): Decision => {
    const valid = reviewRequestSchema.parse(request);
    for (;;) {
      // Each call past the first is a new interrupt (LangGraph numbers them within the node).
      const value = interrupt(valid);
      const parsed = decisionSchema.safeParse(value);
      if (parsed.success && !saysNothing(parsed.data)) return parsed.data;
      deps.logger?.warn(
        { checkpoint: valid.kind, answer: parsed.success ? 'revise without feedback' : 'malformed' },
        'a review answer was refused; asking again',
      );
    }
  };
}

/**
 * Who decided, for the agents' record: a person's id, or the timer that decided for nobody
 * (agents are told a review timed out, never that someone rejected it).
 */
export const decidedBy = (d: Decision) => (d.automatic ? `no one (${d.automatic})` : d.by);
