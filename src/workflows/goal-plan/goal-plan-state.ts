import { Annotation } from '@langchain/langgraph';
import { z } from 'zod';
import { last } from '../shared/annotations.js';

/** What the evaluator answers (seed 001's GoalEvaluation). */
export const goalEvaluationSchema = z.object({
  goalSpec: z.string().describe('The goal restated precisely: what done looks like'),
  feasibility: z.enum(['high', 'medium', 'low']).describe('How feasible the goal is as stated'),
  notes: z.string().describe('Risks, assumptions and open questions'),
});

/** What the planner answers: numbered steps, and on a revision what changed. */
export const planSchema = z.object({
  steps: z.array(z.string()).min(1).max(20).describe('The steps, in order, each one sentence'),
  changes: z.string().describe('On a revision: what changed from the previous plan and why; else empty'),
});

export interface HistoryEntry {
  role: 'user' | 'agent' | 'human';
  content: string;
  timestamp: string;
  /** Who said it: the agent's name or who decided (entries saved before it was kept have none). */
  author?: string;
  /** A revise's own words: the agents read them as feedback. */
  feedback?: string;
}

type Phase =
  | 'evaluate'
  | 'goal_review'
  | 'refine_goal'
  | 'plan'
  | 'plan_review'
  | 'revise_plan'
  | 'execute'
  | 'done'
  | 'rejected';

/** Seed 001's state: the goal and plan collaborations, then autonomous execution. */
export const GoalPlanState = Annotation.Root({
  /** The goal as the person wrote it (the task text), never changed. */
  rawGoal: last(() => ''),
  /** Where the collaboration is: which node runs next, and how it ended (done, rejected). */
  phase: last<Phase>(() => 'evaluate'),
  /** Everything said, by whom and when: the task, each agent's answer, each piece of feedback. */
  collaborationHistory: Annotation<HistoryEntry[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  /** The goal restated precisely by the evaluator (what done looks like); refined on feedback. */
  goalSpec: last<string | null>(() => null),
  /** The evaluator's feasibility of the goal as stated: high, medium or low. */
  goalFeasibility: last<string | null>(() => null),
  /** The evaluator's risks, assumptions and open questions. */
  evaluationNotes: last<string | null>(() => null),
  /** Which round of the goal review this is (1 the first); the card shows it. */
  goalIteration: last(() => 1),
  /** The person's latest feedback on the goal, for the next refinement; null once accepted. */
  userGoalFeedback: last<string | null>(() => null),
  /** The plan's steps, in order, each one sentence; replaced at each revision. */
  plan: last<string[]>(() => []),
  /** Which round of the plan review this is (1 the first). */
  planIteration: last(() => 1),
  /** The person's latest feedback on the plan, for the next revision. */
  userPlanFeedback: last<string | null>(() => null),
  /** What changed at each revision of the plan, one entry per round. */
  planChangeLog: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  /** Results of executed steps, in order. */
  stepResults: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  /** What the executed plan came to, written after the last step. */
  summary: last<string | null>(() => null),
});
export type GoalPlanStateType = typeof GoalPlanState.State;
