/**
 * Glossary
 * - task: one piece of work a person started; one LangGraph thread (thread_id = task id), one
 *   Slack thread or terminal run. Status: working, waiting, done, rejected, cancelled, failed.
 * - review: a pending LangGraph interrupt, keyed by its interrupt id, shown as a card or a prompt.
 * - decision: a person's answer to a review (approve / edit / revise / reject, with feedback). Recorded
 *   once, by one conditional update, in the transaction that enqueues the resume.
 * - checkpoint: a named point where a workflow asks a human ("review", "goal_review", …); the
 *   config file sets its reviewers and timeout. (LangGraph's own checkpoints are its saved state.)
 * - surface: where people see and answer tasks: Slack or the terminal. Surfaces call the engine
 *   (start, decide, redirect, cancel, retry) and receive its events.
 * - event: something a surface must show (agent said, review requested, …), stored in an outbox
 *   under a key unique per task, so that it is delivered once even when a step runs again.
 */

export const TASK_STATUSES = [
  'working',
  'waiting',
  'done',
  'rejected',
  'stopped',
  'cancelled',
  'failed',
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** `stopped`: ended without approval because a limit was reached (the proposal's revisions). */
export const FINAL_STATUSES: readonly TaskStatus[] = ['done', 'rejected', 'stopped', 'cancelled'];

/**
 * A task's allowed status changes, the only ones `setStatus` makes (and the decision that
 * reopens a waiting task, `waiting → working`). A final status never changes: a cancelled task
 * stays cancelled whatever a late run says. A failed task is retried (`→ working`) or cancelled.
 */
export const STATUS_CHANGES: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  working: ['waiting', 'done', 'rejected', 'stopped', 'cancelled', 'failed'],
  waiting: ['working', 'done', 'rejected', 'stopped', 'cancelled', 'failed'],
  failed: ['working', 'cancelled'],
  done: [],
  rejected: [],
  stopped: [],
  cancelled: [],
};

/** The statuses a task may be in to move to `to` (including `to` itself, for a new reason). */
export const statusesBefore = (to: TaskStatus): TaskStatus[] =>
  TASK_STATUSES.filter((from) => from === to || STATUS_CHANGES[from].includes(to));

export const SURFACES = ['cli', 'slack'] as const;
export type Surface = (typeof SURFACES)[number];

// The review protocol (what a workflow asks, what it is answered) is the workflows' to define:
// they sit below the engine and must not reach up into it.
export {
  ACTIONS,
  type Action,
  approves,
  DEFAULT_ACTIONS,
  type Decision,
  decisionSchema,
  FIELD_MAX,
  type PendingEdit,
  type ReviewField,
  type ReviewRequest,
  type ReviewRequestInput,
  reviewFieldSchema,
  reviewRequestSchema,
  TOOL_CALL_KIND,
} from '../workflows/shared/protocol.js';

import type { Decision, ReviewRequest } from '../workflows/shared/protocol.js';

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
  /** May people from another organization and guests decide (absent on reviews opened before it: no)? */
  allowExternal?: boolean;
  timeoutSeconds?: number;
  onTimeout: 'approve' | 'reject' | 'cancel' | 'remind' | 'escalate';
  /** With `onTimeout: escalate`: each step's reviewers added and wait, and what applies after the last. */
  escalation?: {
    steps: { to: string[]; afterSeconds: number }[];
    finalAction: 'approve' | 'reject' | 'cancel' | 'remind';
  };
  /** How many escalation steps were taken (its reviewers then include theirs). */
  escalated?: number;
  /** How many different people must approve (absent: one). */
  approvals?: number;
  /** Reminder pings, in seconds before the deadline; absent means one at half time. */
  remindersBeforeSeconds?: number[];
  allowSkip: boolean;
  dmReviewers: boolean;
  /** Mentioned besides the reviewers (absent on reviews opened before it existed: the requester). */
  notify?: string[];
  feedback: { minLength: number; maxLength: number };
  /**
   * What a reply in the thread means while the review waits (the checkpoint's `replies`); absent
   * on reviews opened before it existed, which behave as `ask`.
   */
  replies?: 'ask' | 'feedback' | 'ignore';
}

/** One person's approval of a review that needs several (N of M). */
export interface Approval {
  by: string;
  at: string;
  contentHash: string;
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
  /** Approvals counted so far, oldest first, while the review waits for its quorum. */
  approvals: Approval[];
}

/** What surfaces are told, in order, once each. */
export type EngineEvent =
  | { type: 'task_started'; task: Task }
  | { type: 'agent_said'; agent: string; text: string }
  | { type: 'review_requested'; review: Review }
  | { type: 'review_decided'; review: Review }
  /** One more approval counted; the review waits for the rest of its quorum. */
  | { type: 'review_progress'; review: Review; by: string }
  /** Nobody decided by the deadline: `to` were added as reviewers and the deadline moved. */
  | { type: 'review_escalated'; review: Review; to: string[]; reason: string }
  /**
   * A review still waiting: a reminder before its deadline (n = 1, 2…), or past it (overdue);
   * `withheld`: why its deadline did not approve it as its checkpoint says (it waits for a person).
   */
  | { type: 'review_reminder'; review: Review; n: number; overdue: boolean; withheld?: string }
  /** The task was given a new goal while agents worked (seed 003); they start over on it. */
  | { type: 'task_redirected'; text: string; by: string; abandoned: string }
  /** A review closed without a decision (its task was cancelled): who closed it and why. */
  | { type: 'review_closed'; review: Review; by: string; reason: string }
  | { type: 'task_status'; status: TaskStatus; reason: string | null }
  /** An event the surface refused for good (its key, type and the surface's error code): shown as a short fallback. */
  | {
      type: 'delivery_failed';
      failedKey: string;
      failedType: EngineEvent['type'];
      code: string;
      /**
       * For a card that could not be shown, or redrawn for content an edit changed: its review, so
       * a plainer card can still be answered.
       */
      review?: Review;
    };

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
  /**
   * The person at the terminal that runs this process (and owns its database): the one caller
   * trusted to steer any task. Only the terminal sets it; every other actor is checked.
   */
  operator?: true;
  groups?: string[];
  /** Groups the surface could not answer for just now: a right through one is refused as unknown. */
  unknownGroups?: string[];
  /**
   * Whether the actor is in the user group; rejects when the surface cannot say. Asked, never with
   * a row locked, only when the actor's right hinges on a group (not for a named user, `requester`
   * or `anyone`).
   */
  inGroup?: (groupId: string) => Promise<boolean>;
  /**
   * From outside the workspace's organization (Slack Connect) or a guest: `true`; `'unknown'` when
   * the surface could not tell just now. Either may decide only where the checkpoint sets
   * `allowExternal`. Absent: a member (the terminal's user, too).
   */
  external?: true | 'unknown';
}

/** Who acts when nobody did: a timeout's default action. */
export const SYSTEM_ACTOR = 'signoff';

/** The terminal's user, trusted to steer any task (see `Actor.operator`). */
export const operator = (id: string): Actor => ({ id, operator: true });

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
