import { Annotation } from '@langchain/langgraph';
import type { Turn } from '../shared/messages.js';

export const PairState = Annotation.Root({
  /** Everything said: the task, each agent's turn, each piece of human feedback (seed 000). */
  messages: Annotation<Turn[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  /** How many times a human has given feedback; each feedback starts a new cycle. */
  phase: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
  /** Agent turns taken in the current cycle (0 … maxIterations). */
  turn: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
  /** Set when the run ends: approved with no further feedback, or rejected. */
  outcome: Annotation<'done' | 'rejected' | null>({ reducer: (_, b) => b, default: () => null }),
});
export type PairStateType = typeof PairState.State;
