import { Annotation } from '@langchain/langgraph';

/** One line of seed 002's execution history. */
export interface HistoryEntry {
  iteration: number;
  agent: string;
  result?: string;
  userFeedback?: string;
}

export const SpecialistState = Annotation.Root({
  /** The task as the person wrote it; never rewritten, so every loop can see it (property 2). */
  originalTask: Annotation<string>({ reducer: (_, b) => b, default: () => '' }),
  /** The specialist the planner chose (one of the configured list). */
  specialist: Annotation<string | null>({ reducer: (_, b) => b, default: () => null }),
  /** Everything that happened, in order: planner, specialist results, human feedback, failures. */
  history: Annotation<HistoryEntry[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  /** 1 on the first pass, +1 for each revision. */
  iteration: Annotation<number>({ reducer: (_, b) => b, default: () => 1 }),
  /** The latest specialist answer. */
  result: Annotation<string | null>({ reducer: (_, b) => b, default: () => null }),
  /** The last agent failure, while it waits for a person to retry, revise or give up. */
  failure: Annotation<{ agent: 'planner' | 'specialist'; message: string } | null>({
    reducer: (_, b) => b,
    default: () => null,
  }),
  outcome: Annotation<'done' | 'rejected' | null>({ reducer: (_, b) => b, default: () => null }),
});
export type SpecialistStateType = typeof SpecialistState.State;
