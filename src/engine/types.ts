/**
 * Glossary
 * - task: one piece of work a person started; one LangGraph thread (thread_id = task id), one
 *   Slack thread or terminal run. Status: working, waiting, done, rejected, cancelled, failed.
 * - review: a pending LangGraph interrupt, keyed by its interrupt id, shown as a card or a prompt.
 * - decision: a person's answer to a review (approve / revise / reject, with feedback). Recorded
 *   once, by one conditional update, in the transaction that enqueues the resume.
 * - checkpoint: a named point where a workflow asks a human ("review", "goal_review", …); the
 *   config file sets its reviewers and timeout. (LangGraph's own checkpoints are its saved state.)
 * - surface: where people see and answer tasks: Slack or the terminal. Surfaces call the engine
 *   (start, decide, redirect, cancel, retry) and receive its events.
 * - event: something a surface must show (agent said, review requested, …), stored in an outbox
 *   under a key unique per task, so that it is delivered once even when a step runs again.
 */
import { z } from 'zod';

export const TASK_STATUSES = ['working', 'waiting', 'done', 'rejected', 'cancelled', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const FINAL_STATUSES: readonly TaskStatus[] = ['done', 'rejected', 'cancelled'];

export const SURFACES = ['cli', 'slack'] as const;
export type Surface = (typeof SURFACES)[number];

export const ACTIONS = ['approve', 'revise', 'reject'] as const;
export type Action = (typeof ACTIONS)[number];

/** A form field a review may ask for besides the feedback text. */
export const reviewFieldSchema = z.object({
  id: z.string().regex(/^[a-z][a-z0-9_]*$/),
  label: z.string().min(1).max(48),
  multiline: z.boolean().default(false),
  optional: z.boolean().default(true),
  initial: z.string().max(3000).optional(),
});

/** What a workflow passes to `interrupt()` when it needs a person. */
export const reviewRequestSchema = z.object({
  /** The checkpoint's name; the config file's `checkpoints.<kind>` applies to it. */
  kind: z.string().regex(/^[a-z][a-z0-9_]*$/, 'kind must be a lowercase checkpoint name'),
  title: z.string().min(1).max(150),
  /** The content to review, as Markdown. */
  body: z.string().max(100_000),
  actions: z.array(z.enum(ACTIONS)).min(1).default(['approve', 'revise', 'reject']),
  /** Button labels where the workflow's words differ (e.g. approve → "Accept goal"). */
  labels: z.partialRecord(z.enum(ACTIONS), z.string().min(1).max(30)).default({}),
  round: z.number().int().min(1).default(1),
  fields: z.array(reviewFieldSchema).max(5).default([]),
  /**
   * Set when the interrupt came in a standard shape (LangChain's HITLRequest, the Agent Inbox's
   * HumanInterrupt list): the value, so that the decision is answered in that shape.
   */
  origin: z.object({ format: z.enum(['hitl', 'agent_inbox']), value: z.unknown() }).optional(),
});
export type ReviewRequest = z.infer<typeof reviewRequestSchema>;
export type ReviewRequestInput = z.input<typeof reviewRequestSchema>;

/** What the engine resumes the interrupt with. */
export const decisionSchema = z.object({
  action: z.enum(ACTIONS),
  feedback: z.string().max(3000).optional(),
  values: z.record(z.string(), z.string()).default({}),
  by: z.string().min(1),
  at: z.string(),
  /** Set when the decision was not made by a person (a timeout's default action). */
  automatic: z.string().optional(),
});
export type Decision = z.infer<typeof decisionSchema>;

/** Dates are ISO strings: tasks and reviews travel inside events as JSON. */
export interface Task {
  id: string;
  workflow: string;
  surface: Surface;
  text: string;
  requester: string;
  origin: Record<string, unknown>;
  status: TaskStatus;
  statusReason: string | null;
  /** How many times the task was redirected; each generation is its own graph thread. */
  generation: number;
  abandonedGoals: AbandonedGoal[];
  createdAt: string;
  updatedAt: string;
}

export interface AbandonedGoal {
  text: string;
  by: string;
  at: string;
}

/** The graph thread of a task's current generation (the first keeps the task's own id). */
export const threadOf = (task: Pick<Task, 'id' | 'generation'>) =>
  task.generation === 0 ? task.id : `${task.id}#${task.generation}`;

/** The task a graph thread belongs to. */
export const taskOfThread = (threadId: string) => threadId.replace(/#\d+$/, '');

export interface ReviewSettings {
  reviewers: string[];
  allowSelfApproval: boolean;
  timeoutSeconds?: number;
  onTimeout: 'approve' | 'reject' | 'cancel' | 'remind';
  /** Reminder pings, in seconds before the deadline; absent means one at half time. */
  remindersBeforeSeconds?: number[];
  allowSkip: boolean;
  dmReviewers: boolean;
  feedback: { minLength: number; maxLength: number };
}

export interface Review {
  id: string;
  taskId: string;
  checkpoint: string;
  request: ReviewRequest;
  settings: ReviewSettings;
  status: 'pending' | 'decided' | 'cancelled';
  decision: Decision | null;
  decidedBy: string | null;
  decidedAt: string | null;
  dueAt: string | null;
  createdAt: string;
}

/** What surfaces are told, in order, once each. */
export type EngineEvent =
  | { type: 'task_started'; task: Task }
  | { type: 'agent_said'; agent: string; text: string }
  | { type: 'review_requested'; review: Review }
  | { type: 'review_decided'; review: Review }
  /** A review still waiting: a reminder before its deadline (n = 1, 2…), or past it (overdue). */
  | { type: 'review_reminder'; review: Review; n: number; overdue: boolean }
  /** The task was given a new goal while agents worked (seed 003); they start over on it. */
  | { type: 'task_redirected'; text: string; by: string; abandoned: string }
  /** A review closed without a decision (its task was cancelled): who closed it and why. */
  | { type: 'review_closed'; review: Review; by: string; reason: string }
  | { type: 'task_status'; status: TaskStatus; reason: string | null }
  /** An event the surface refused for good (its key, type and the surface's error code): shown as a short fallback. */
  | { type: 'delivery_failed'; failedKey: string; failedType: EngineEvent['type']; code: string };

export interface DeliveredEvent {
  id: number;
  taskId: string;
  key: string;
  event: EngineEvent;
  /** Which attempt this is (1 the first). Above 1 an earlier one may have shown it before dying. */
  attempts: number;
}

/**
 * A surface's way of showing events. Throw a `DeliveryError` to say how it failed (temporary,
 * refused, unreachable); any other error counts as temporary when it is a lost connection, else
 * as refused.
 */
export type Sink = (event: DeliveredEvent, task: Task) => Promise<void>;

/** Someone acting through a surface. `groups` are the user groups the surface knows them to be in. */
export interface Actor {
  id: string;
  groups?: string[];
  /** Asked only when a checkpoint names user groups: which of `groupIds` the actor is in. */
  memberOf?: (groupIds: string[]) => Promise<string[]>;
}

/** Who acts when nobody did: a timeout's default action. */
export const SYSTEM_ACTOR = 'signoff';

export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/** What an event is, in words (a fallback says which thing could not be shown). */
export function eventInWords(type: EngineEvent['type']): string {
  switch (type) {
    case 'agent_said':
      return 'An agent message';
    case 'review_requested':
      return 'A review card';
    case 'review_reminder':
      return 'A reminder';
    default:
      return 'An update of this task';
  }
}
