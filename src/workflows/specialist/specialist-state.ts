import { Annotation } from '@langchain/langgraph';
import { last } from '../shared/annotations.js';

/** One line of seed 002's execution history. */
export interface HistoryEntry {
  iteration: number;
  agent: string;
  result?: string;
  userFeedback?: string;
}

export const SpecialistState = Annotation.Root({
  /** The task as the person wrote it; never rewritten, so every loop can see it (property 2). */
  originalTask: last<string>(() => ''),
  /** The specialist the planner chose (one of the configured list). */
  specialist: last<string | null>(() => null),
  /** Everything that happened, in order: planner, specialist results, human feedback, failures. */
  history: Annotation<HistoryEntry[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  /** 1 on the first pass, +1 for each revision. */
  iteration: last<number>(() => 1),
  /** The latest specialist answer. */
  result: last<string | null>(() => null),
  /** The last agent failure, while it waits for a person to retry, revise or give up. */
  failure: last<{ agent: 'planner' | 'specialist'; message: string } | null>(() => null),
  outcome: last<'done' | 'rejected' | null>(() => null),
});
export type SpecialistStateType = typeof SpecialistState.State;
