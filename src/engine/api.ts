/**
 * The engine's API, for every surface (Slack, the terminal): commands in, queries out. Events
 * go out through the sinks given at creation, on their own delivery path. Below it, the two parts
 * the engine is made of that main.ts wires too: the Runner (graph runs) and the Controls.
 */
import { SignoffError } from '../errors.js';
import type { AuditEntry, AuditFilter } from './audit-trail.js';
import type { EventRecord } from './event-store.js';
import type { TaskJob } from './job-names.js';
import type { ReviewTimes } from './review-stats.js';
import type { After, Claim } from './runtime/index.js';
import type { TaskFilter } from './task-rows.js';
import type {
  Action,
  Actor,
  AllowRule,
  DeliveredEvent,
  Door,
  Review,
  RuleScope,
  Surface,
  Task,
} from './types.js';
import type { WaitingPage, WaitingQuery } from './waiting-reviews.js';

export type { WaitingPage, WaitingQuery } from './waiting-reviews.js';

export const MAX_TASK_LENGTH = 4000;

export interface StartInput {
  workflow: string;
  text: string;
  requester: string;
  surface: Surface;
  /** Stable id derived from where the task lives (Slack: channel and thread); generated if absent. */
  id?: string;
  origin?: Record<string, unknown>;
  /** Where the workflow is started, for per-channel switches. */
  channel?: string;
  /** The door it comes through when not a person's command (the requester is `<door>:<client>`). */
  door?: Door;
  /** What the workflow starts from besides the text (a review asked through a door). */
  input?: Record<string, unknown>;
}

export interface DecideInput {
  reviewId: string;
  actor: Actor;
  action: Action;
  feedback?: string;
  /** With `edit`: the review's Edit form filled in (by field id); each call's decision, no default. */
  values?: Record<string, string>;
  /** The task the surface believes the review belongs to (from its own message); refused if not. */
  taskId?: string;
  /** `contentHash` of what the person was shown; refused ('stale_review') when the review's differs. */
  contentHash?: string;
}

/**
 * A recorded decision: the review as it is now, and its task. With the review still pending, an
 * approval (or an edit: its editor's approval of the edited call, which the review now shows)
 * counted towards its quorum (N of M): its `approvals` say how many it has.
 */
export interface Decided {
  review: Review;
  task: Task;
}

/** Why a decision is refused, as `DecisionRefused`'s code. */
export type DecisionRefusal =
  | 'unknown_review'
  | 'review_not_pending'
  | 'not_allowed'
  | 'directory_unavailable'
  | 'invalid_decision'
  | 'stale_review'
  | 'counted_already'
  /** A timer's approval of what it may never approve (timerMayNotApprove): it keeps waiting. */
  | 'approval_withheld';

/**
 * A decision refused: a `SignoffError` (its code and the sentence to show, like every command's
 * refusal) that also carries the review as it is now, when the refusal came from one (a surface
 * redraws a card that was out of date from it).
 */
export class DecisionRefused extends SignoffError {
  declare readonly code: DecisionRefusal;
  constructor(
    code: DecisionRefusal,
    message: string,
    readonly review?: Review,
  ) {
    super(code, message);
    this.name = 'DecisionRefused';
  }
}

/** "Approve and always allow…": standing rules a team signs off (rule-decisions.ts). */
export interface RuleControls {
  /** Who signs a rule off (the config file's `alwaysAllow`): undefined where nobody is named, and none may be proposed. */
  signers(): { reviewers: string[]; approvals: number } | undefined;
  /** The scopes "Always allow…" offers for a review; none where the config file names nobody to sign a rule off. */
  scopes(review: Review, task: Task): RuleScope[];
  /**
   * Approves the review (as `decide` does, every check included) and proposes a rule of the
   * scope `scope` from it, in one transaction: refused together.
   */
  propose(
    input: Omit<DecideInput, 'action' | 'values' | 'feedback'> & { scope: RuleScope['kind'] },
  ): Promise<Decided & { rule: AllowRule }>;
  /** One signer's approval (the rule applies once enough approved) or refusal of a proposed rule. */
  decide(id: number, actor: Actor, action: 'approve' | 'reject'): Promise<AllowRule>;
  /** Ends a rule (proposed or signed off): by its proposer, anyone who may sign rules off, or the operator. */
  revoke(id: number, actor: Actor): Promise<AllowRule>;
  /** The rules in these statuses (default: proposed and active), newest first, at most 500. */
  list(statuses?: AllowRule['status'][]): Promise<AllowRule[]>;
}

/** Claim and hand-off (claims.ts). */
export interface ClaimControls {
  /**
   * "I'll take it" (`to` absent: the actor), or hands the review to `to` (as their surface knows
   * them: their standing too); by anyone who may decide it or its claimer, to someone who may
   * decide it. Refused with a sentence otherwise.
   */
  claim(reviewId: string, actor: Actor, to?: Actor): Promise<Review>;
  /** Nobody has it any more. */
  release(reviewId: string, actor: Actor): Promise<Review>;
  /**
   * `person` is away until `until` (null: back now): their pending reviews, and those opened while
   * they are away, go to `delegate` (claimed by them, and they decide beside the person).
   */
  away(person: string, until: Date | null, delegate?: string): Promise<{ handedOver: number }>;
}

export interface Engine {
  /** Standing rules ("Approve and always allow…"). */
  rules: RuleControls;
  /** Claim and hand-off. */
  claims: ClaimControls;
  // Commands. Each checks what it is given and, when it refuses, throws a `SignoffError` with its
  // code and the sentence a person is shown; it never returns a refusal.

  /**
   * Starts a task (once per id: a retried start returns the same task, `created` false). Refused
   * ('too_many_tasks', with the sentence) when the requester or the channel already has as many
   * tasks in the agents' hands as the config file's `starts` allows. Its run queues behind
   * decisions: a resume goes ahead of every start waiting.
   */
  start(input: StartInput): Promise<{ task: Task; created: boolean }>;
  /**
   * Records a decision exactly once (and queues the run it resumes in the same transaction), or
   * counts an approval towards a quorum. Refused with a `DecisionRefused` that says why; every
   * refusal is in the audit trail.
   */
  decide(input: DecideInput): Promise<Decided>;
  // cancel, redirect and retry are the Controls' (below): the actor must be the requester, one of
  // the task's reviewers (authorize.ts) or the terminal's operator; only timers cancel as the system.
  cancel(taskId: string, actor: Actor, options?: { reason?: string }): Promise<Task>;
  redirect: Controls['redirect'];
  retry: Controls['retry'];

  // Queries.

  /** The workflows a person may start (in `channel`, when given). */
  available(channel?: string): { name: string; description: string }[];
  /** Checks a start before anything is posted anywhere; returns the task text, trimmed. */
  validate(input: Pick<StartInput, 'workflow' | 'text' | 'channel'>): string;
  /**
   * The sentence a start would be refused with now by the start limits (the config file's
   * `starts`), for a surface to say before it posts anything; `start` checks again, under a lock.
   */
  startRefusal(input: Pick<StartInput, 'surface' | 'requester' | 'channel'>): Promise<string | undefined>;
  getTask(id: string): Promise<Task | undefined>;
  /**
   * The task the surface started in this thread (`origin.channel` and `origin.ts`), whatever its
   * id: how Slack finds a thread's task from any workspace's payload, tasks whose ids named a
   * workspace (before migration 017) included.
   */
  taskAt(surface: Surface, place: { channel: string; thread: string }): Promise<Task | undefined>;
  listTasks(filter?: TaskFilter): Promise<Task[]>;
  /** One review and its task (one read), for a surface that shows its form or checks its place before a decision. */
  review(id: string): Promise<{ review: Review; task: Task } | undefined>;
  reviews(taskId: string, status?: Review['status']): Promise<Review[]>;
  /**
   * What the actor may do at a pending review (its actions the rules allow them), or, when
   * nothing, the refusal's words: for a surface that asks before it decides.
   */
  choicesFor(review: Review, task: Task, actor: Actor): Promise<{ actions: Action[]; refusal?: string }>;
  /**
   * A page of the pending reviews the actor may decide, oldest first, with how many there are in
   * all and after this page (a Slack home tab, `/signoff list`). Groups the actor's right hinges
   * on are asked of the surface's directory.
   */
  reviewsFor(surface: Surface, actor: Actor, query?: WaitingQuery): Promise<WaitingPage>;
  /** The places (Slack channels) where reviews wait: a surface shows a person only those they may see. */
  reviewPlaces(surface: Surface): Promise<string[]>;
  /** A task's events, oldest first. */
  events(taskId: string): Promise<DeliveredEvent[]>;
  /** Every event of the task with how its delivery went (`signoff events`). */
  eventRecords(taskId: string): Promise<EventRecord[]>;
  /** Reviews waiting now and decision times since `since`, per workflow and place (the App Home). */
  reviewTimes(surface: Surface, since: Date): Promise<ReviewTimes[]>;
  /** Every attempt and decision, oldest first (`signoff audit`, a task's History in Slack). */
  auditTrail(filter?: AuditFilter): AsyncIterable<AuditEntry>;
  /**
   * Records what a surface or door refused before asking the engine (an agent's ask outside its
   * channels, a decision from a list or on a rule its person cannot see): who tried, what, and the
   * sentence they were given, so that every attempt is in the audit.
   */
  auditRefusal(entry: {
    actor: string;
    action: string;
    /** What it was about, where known: `signoff audit <task>` lists it then. */
    taskId?: string;
    reviewId?: string;
    code: string;
    message: string;
    detail?: Record<string, unknown>;
  }): Promise<void>;

  // Running.

  /**
   * Makes this process run the surface's tasks (`concurrency` at once), deliver their events and
   * fire their review timers; a task whose process died goes on once that process's lease runs out
   * (`SIGNOFF_LEASE_SECONDS`). `retention`: also take the daily retention run, with this process's
   * settings: servers only, never a terminal command (an operator's laptop would purge a shared
   * database by its own settings).
   */
  work(surface: Surface, concurrency: number, options?: { retention?: boolean }): Promise<void>;
  /** Runs the timers due by the engine's clock now (after the clock was moved). */
  releaseDueTimers(surface: Surface): Promise<number>;
  /** Stops listening for aborts and sweeping for undelivered events (at shutdown). */
  stop(): Promise<void>;
}

/**
 * Runs tasks' graphs (runner.ts): the job handler behind "advance task T". Every method may be
 * called again, from any process, at any time: what it does is derived from the database.
 */
export interface Runner {
  /**
   * The handler of a task's run job: runs the task as far as it goes now, under the job's lease
   * (the runtime gives one holder per task, so no two processes ever run one graph thread at
   * once). A run whose lease is lost applies nothing; one cut short by this process stopping
   * asks to run again, from its last checkpoint, in whichever process runs tasks next.
   */
  advance(claim: Claim<TaskJob>): Promise<After>;
  /**
   * Stops the task's run in this process, if one is under way (its model call aborted; nothing of
   * the step applied), or one that starts soon after, having read the task before the change;
   * with `below`, only a run of an older generation than that (a redirect); `underWay`: only a
   * run under way now (a state read, not a command).
   */
  abort(taskId: string, below?: number, underWay?: boolean): void;
  /** The tasks whose runs are under way in this process. */
  running(): string[];
  /**
   * The process is stopping: the runs under way stop now and no run starts any more. Returns the
   * tasks cut short: they stay working and go on from their last checkpoint in the next process
   * that runs tasks.
   */
  stop(): string[];
}

export type RedirectOptions = { addressed?: boolean; writtenAt?: Date };

/**
 * Cancel, redirect and retry (controls.ts): the commands that steer a task as a whole. Each locks
 * the task's row, checks its actor against the task's rules there (authorize.ts), changes the task
 * in that one transaction with its audit entry and its run queued, and then stops its run wherever
 * it runs. A refusal throws a `SignoffError` with its code and the sentence to show.
 */
export interface Controls {
  /**
   * Cancels a task that has not ended, and closes its pending reviews; returns it as it is now.
   * `system`: the engine's own timer (no actor is checked; the audit says it was a rule).
   * Refused: 'unknown_task', 'task_not_waiting' (ended already), 'not_allowed' or
   * 'directory_unavailable'.
   */
  cancel(taskId: string, actor: Actor, options?: { reason?: string; system?: boolean }): Promise<Task>;
  /**
   * Gives a working task a new goal (seed 003): the step in flight stops (its model call aborted,
   * in whichever process runs it) and the workflow starts over on the goal in a new generation's
   * graph thread; the old goal is kept as abandoned, its thread as the history of it, its pending
   * reviews closed; only older generations' runs are stopped. Refused:
   * 'empty_task' (no goal, or too long), 'not_addressed' (checked before anything else, for words
   * not meant for signoff where the workflow wants them addressed), 'unknown_task',
   * 'task_not_working', 'not_allowed', 'directory_unavailable'; 'stale_review': words written
   * (`writtenAt`) before a person decided one of its reviews, read after (controls.ts).
   */
  redirect(taskId: string, text: string, actor: Actor, options?: RedirectOptions): Promise<Task>;
  /**
   * Runs a failed task again from its last checkpoint, and tries again the events its surface
   * could not be reached for. Refused: 'unknown_task', 'task_not_waiting' (not failed),
   * 'not_allowed' or 'directory_unavailable'.
   */
  retry(taskId: string, actor: Actor): Promise<Task>;
}
