/**
 * Glossary
 * - task: one piece of work a person started; one LangGraph thread (thread_id = task id), one
 *   Slack thread or terminal run. Status: working, waiting, done, rejected, stopped, cancelled, failed.
 * - review: a pending LangGraph interrupt, keyed by its interrupt id, shown as a card or a prompt.
 * - decision: a person's answer to a review (approve / edit / revise / reject, with feedback). Recorded
 *   once, by one conditional update, in the transaction that enqueues the resume.
 * - checkpoint: a named point where a workflow asks a human ("review", "goal_review", …); the
 *   config file sets its reviewers and timeout. (LangGraph's own checkpoints are its saved state.)
 * - surface: where people see and answer tasks: Slack or the terminal. Surfaces call the engine
 *   (start, decide, redirect, cancel, retry) and receive its events.
 * - event: something a surface must show (agent said, review requested, …), stored in an outbox
 *   under a key unique per task (event-keys.ts), so that it is delivered once even when a step runs
 *   again.
 * - generation: how many times a task was redirected; each generation runs in a graph thread of
 *   its own (`threadOf`), so a redirected task starts over while the old thread stays as history.
 * - job: work the runtime runs (runtime/): a task's run (`run:<task>`), its delivery
 *   (`deliver:<task>`), a review timer, retention. One row per key: asking again never makes two.
 * - lease: the right, held by one process at a time, to run a job: a task's graph or its
 *   deliveries; renewed by heartbeat, and checked (fenced) inside every transaction that writes
 *   what its holder did (runtime/lease.ts).
 * - lane: the order a task's events are delivered in: its status while it runs goes in the
 *   `status` lane (only the latest matters), everything else in the `thread` lane; each lane goes
 *   out in id order and neither holds back the other (migration 008).
 * - plan (progress): a task's workflow's steps, its graph's nodes, each pending, in progress,
 *   complete or error, moved by its runs (progress.ts); shown as it changes through the status lane.
 *
 * The shapes of a task, a review and each event are zod schemas (shapes.ts); the types here are
 * inferred from them.
 */
import type { z } from 'zod';
import type {
  abandonedGoalSchema,
  allowRuleSchema,
  approvalSchema,
  engineEventSchema,
  progressSchema,
  reviewSchema,
  reviewSettingsSchema,
  ruleScopeSchema,
  taskSchema,
} from './shapes.js';
import { TASK_STATUSES, type TaskStatus } from './shapes.js';

export {
  DOORS,
  type Door,
  RULE_SCOPES,
  STEP_STATUSES,
  type StepStatus,
  SURFACES,
  type Surface,
  TASK_STATUSES,
  type TaskStatus,
} from './shapes.js';

/** `stopped`: ended without approval because a limit was reached (the proposal's revisions). */
export const FINAL_STATUSES: readonly TaskStatus[] = ['done', 'rejected', 'stopped', 'cancelled'];

/** Whether no run of the task is to go on: a final status, or failed (until a retry). */
export const runsOver = (task: Pick<Task, 'status'>) =>
  FINAL_STATUSES.includes(task.status) || task.status === 'failed';

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
} from '../workflows/protocol/requests.js';

export type Task = z.infer<typeof taskSchema>;
export type AbandonedGoal = z.infer<typeof abandonedGoalSchema>;
/** A task's plan: its workflow's steps and where each is (progress.ts). */
export type Progress = z.infer<typeof progressSchema>;
export type ProgressStep = Progress['steps'][number];

/** The graph thread of a task's current generation (the first keeps the task's own id). */
export const threadOf = (task: Pick<Task, 'id' | 'generation'>) =>
  task.generation === 0 ? task.id : `${task.id}#${task.generation}`;

/** The task a graph thread belongs to. */
export const taskOfThread = (threadId: string) => threadId.replace(/#\d+$/, '');

export type ReviewSettings = z.infer<typeof reviewSettingsSchema>;
export type Approval = z.infer<typeof approvalSchema>;
export type Review = z.infer<typeof reviewSchema>;
/** A rule a team signed off, or one proposed (allow-rules.ts). */
export type AllowRule = z.infer<typeof allowRuleSchema>;
export type RuleScope = z.infer<typeof ruleScopeSchema>;
/** What surfaces are told, in order, once each (each variant is described in shapes.ts). */
export type EngineEvent = z.infer<typeof engineEventSchema>;

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
   * Where the person acts from, in their surface's words (Slack: the workspace of their request);
   * passed back to the surface's directory, which may look groups up there.
   */
  workspace?: string;
  /**
   * From outside the workspace's organization (Slack Connect) or a guest: `true`; `'unknown'` when
   * the surface could not tell just now. Either may decide only where the checkpoint sets
   * `allowExternal`. Absent: a member (the terminal's user, too).
   */
  external?: true | 'unknown';
}

/**
 * Who is in which user group, as a surface knows it (Slack's user groups): the port the engine
 * asks when a person's right hinges on a group. Asked before any row is locked (never from inside
 * a transaction), only for the groups that matter (not for a reviewer named by id, `requester` or
 * `anyone`), and never about the engine's own timers or the terminal's operator.
 */
export interface GroupDirectory {
  /**
   * Which of `groups` the actor is in (`member`), and which the surface could not say just now
   * (`unanswered`: a right through one of those is refused as 'directory_unavailable', with a
   * sentence to try again); any other group they are not in. `task`: the task the question is
   * about, when there is one (Slack looks its groups up in the task's workspace). A rejection
   * counts as every group unanswered.
   */
  memberOf(actor: Actor, groups: readonly string[], task?: Task): Promise<GroupAnswers>;
}

export interface GroupAnswers {
  member: string[];
  unanswered: string[];
}

/** Who acts when nobody did: a timeout's default action. */
export const SYSTEM_ACTOR = 'signoff';

/** The terminal's user, trusted to steer any task (see `Actor.operator`). */
export const operator = (id: string): Actor => ({ id, operator: true });

export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

const IN_WORDS: Partial<Record<EngineEvent['type'], string>> = {
  agent_said: 'An agent message',
  review_requested: 'A review card',
  review_reminder: 'A reminder',
};

/** What an event is, in words (a fallback says which thing could not be shown). */
export const eventInWords = (type: EngineEvent['type']) =>
  (Object.hasOwn(IN_WORDS, type) && IN_WORDS[type]) || 'An update of this task';
