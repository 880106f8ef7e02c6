import { Annotation } from '@langchain/langgraph';
import { last } from '../shared/annotations.js';
import type { Turn } from '../shared/messages.js';

export const PairState = Annotation.Root({
  /** Everything said: the task, each agent's turn, each piece of human feedback (seed 000). */
  messages: Annotation<Turn[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  /** How many times a human has given feedback; each feedback starts a new cycle. */
  phase: last<number>(() => 0),
  /** Agent turns taken in the current cycle (0 … maxIterations). */
  turn: last<number>(() => 0),
  /** Set when the run ends: approved with no further feedback, or rejected. */
  outcome: last<'done' | 'rejected' | null>(() => null),
});
export type PairStateType = typeof PairState.State;
