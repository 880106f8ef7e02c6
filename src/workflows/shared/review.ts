import { interrupt } from '@langchain/langgraph';
import { type Decision, decisionSchema, type ReviewRequestInput, reviewRequestSchema } from './protocol.js';
import type { WorkflowDeps } from './types.js';

/** A revise that says nothing: no words and no edited field. Never read as anything else. */
const saysNothing = (d: Decision) =>
  d.action === 'revise' && !d.feedback?.trim() && Object.keys(d.values).length === 0;

/**
 * Pauses the graph for a person; returns their decision. An answer that cannot be read (a
 * malformed resume value, or a revise that says nothing) is refused: logged, and the same
 * question is asked again as a new review. Only where the checkpoint allows the step to be
 * skipped (`allowSkip`) is a malformed answer taken as approval instead (seed 002's "default
 * safe behaviour"), saying so in `automatic`. Code before this call runs again on resume: keep
 * side effects after it.
 */
export function reviewAsker(deps: Pick<WorkflowDeps, 'checkpoint' | 'logger'>) {
  return (request: ReviewRequestInput): Decision => {
    const valid = reviewRequestSchema.parse(request);
    const skippable = deps.checkpoint?.(valid.kind).allowSkip ?? false;
    for (;;) {
      // Each call past the first is a new interrupt (LangGraph numbers them within the node).
      const value = interrupt(valid);
      const parsed = decisionSchema.safeParse(value);
      if (parsed.success && !saysNothing(parsed.data)) return parsed.data;
      if (!parsed.success && skippable) {
        deps.logger?.warn({ checkpoint: valid.kind }, 'a malformed review answer was taken as approval');
        return {
          action: 'approve',
          values: {},
          by: 'signoff',
          at: new Date().toISOString(),
          automatic: 'malformed response',
        };
      }
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
