/**
 * The engine's shapes, each defined once, here: a task, a review (with the settings it keeps) and
 * every event a surface is told. The types in types.ts are inferred from these schemas, rows are
 * parsed with them when read (rows.ts), and events are built in TS from the rows a statement
 * returns: no second copy in SQL.
 */
import { z } from 'zod';
import { checkpointSettingsSchema } from '../config/checkpoint.js';
import { decisionSchema, reviewRequestSchema } from '../workflows/protocol/requests.js';

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

export const SURFACES = ['cli', 'slack'] as const;
export type Surface = (typeof SURFACES)[number];
/**
 * The doors a task comes through besides a person's command on its surface: an agent elsewhere
 * asking the team through the HTTP API or the MCP server (its requester is `<door>:<client>`).
 */
export const DOORS = ['api', 'mcp'] as const;
export type Door = (typeof DOORS)[number];

export const abandonedGoalSchema = z.object({ text: z.string(), by: z.string(), at: z.string() });

/** Where a step of a task's plan is (the values of Slack's task cards). */
export const STEP_STATUSES = ['pending', 'in_progress', 'complete', 'error'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/**
 * A task's plan (plan-steps.ts, progress.ts): its workflow's steps, the graph's nodes in the graph's order, and
 * where each is. `generation`: the task's generation it belongs to (a redirect starts a new plan).
 */
export const progressSchema = z.object({
  generation: z.number().int().min(0),
  steps: z.array(
    z.object({
      /** The graph's node. */
      node: z.string(),
      /** The node's name in words ("write_draft": "Write draft"). */
      title: z.string(),
      status: z.enum(STEP_STATUSES),
      /** The step asked for a review and waits for it (it runs again with the answer). */
      waiting: z.boolean().optional(),
      /** Who stopped the task while this step ran (its cancel's actor). */
      stoppedBy: z.string().optional(),
    }),
  ),
});

/** Dates are ISO strings: tasks and reviews travel inside events as JSON. */
export const taskSchema = z.object({
  id: z.string(),
  workflow: z.string(),
  surface: z.enum(SURFACES),
  text: z.string(),
  requester: z.string(),
  origin: z.record(z.string(), z.unknown()),
  /** The door it came through when not a person's command (null: the surface's own). */
  door: z.enum(DOORS).nullable().default(null),
  /** What its workflow starts from besides the text (a review asked through a door). */
  input: z.record(z.string(), z.unknown()).nullable().default(null),
  status: z.enum(TASK_STATUSES),
  statusReason: z.string().nullable(),
  /** How many times the task was redirected; each generation is its own graph thread. */
  generation: z.number().int().min(0),
  abandonedGoals: z.array(abandonedGoalSchema),
  /** Its plan as its runs (and their settling) last wrote it; null before the first is written (or from before plans). */
  progress: progressSchema.nullable().default(null),
  /** Tokens its models read and wrote, and what they cost at the config file's prices (usage.ts). */
  tokensIn: z.coerce.number().default(0),
  tokensOut: z.coerce.number().default(0),
  costUsd: z.coerce.number().default(0),
  /** What it may spend before it pauses with a review (null: no budget). */
  budgetUsd: z.coerce.number().nullable().default(null),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/**
 * A checkpoint's rules as a review keeps them from the config file when it opens (the resolved
 * checkpoint's shape), and how many escalation steps were taken (its reviewers then include
 * theirs). Reviews opened before a rule existed lack it and read as its old behaviour: no
 * outsiders (`allowExternal`), one approval, the requester notified, replies that `ask`.
 */
export const reviewSettingsSchema = checkpointSettingsSchema
  .omit({ rules: true })
  .partial({ allowExternal: true, approvals: true, notify: true, replies: true, exclusiveClaims: true })
  .extend({
    escalated: z.number().int().optional(),
    /** The checkpoint's rules that fired when it opened (sign-off-rules.ts `applyRules`), by name. */
    ruled: z.array(z.string()).optional(),
    /** People away when it opened (or since), and who decides in their place (claims.ts). */
    delegates: z.record(z.string(), z.string()).optional(),
    /** "Approve and always allow…" may be offered: the config file named who signs off a rule when it opened. */
    alwaysAllow: z.boolean().optional(),
  });

/** One person's approval of a review that needs several (N of M). */
export const approvalSchema = z.object({
  by: z.string(),
  at: z.string(),
  contentHash: z.string(),
  /**
   * The named reviewer, away, in whose place `by` approved: their seat stays filled when the
   * delegate changes or they are back (one person counts once towards the quorum).
   */
  for: z.string().optional(),
});

/**
 * A decision as recorded. Its words are checked when it is made (decision-input.ts); versions
 * before that check recorded longer ones, which reach the workflow as they are (it refuses them
 * and asks again), so a recorded decision reads whatever their length.
 */
const recordedDecisionSchema = decisionSchema.extend({ feedback: z.string().optional() });

export const reviewSchema = z.object({
  id: z.string(),
  taskId: z.string(),
  checkpoint: z.string(),
  request: reviewRequestSchema,
  settings: reviewSettingsSchema,
  status: z.enum(['pending', 'decided', 'cancelled']),
  decision: recordedDecisionSchema.nullable(),
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  dueAt: z.string().nullable(),
  createdAt: z.string(),
  /** Approvals counted so far, oldest first, while the review waits for its quorum. */
  approvals: z.array(approvalSchema),
  /** Who said "I'll take it" (or was handed it): reminders go to them (claims.ts). */
  claimedBy: z.string().nullable().default(null),
  claimedAt: z.string().nullable().default(null),
});

/**
 * Which reviews a standing rule approves ("Approve and always allow…", allow-rules.ts): this
 * task's at its checkpoint (`task`); its workflow's at that checkpoint in its channel
 * (`workflow`); every call of one tool by its workflow in its channel (`tool`); or such calls with
 * exactly these arguments (`call`). `channel` is "" at the terminal.
 */
export const RULE_SCOPES = ['task', 'workflow', 'tool', 'call'] as const;
export const ruleScopeSchema = z.object({
  kind: z.enum(RULE_SCOPES),
  workflow: z.string(),
  checkpoint: z.string(),
  channel: z.string(),
  taskId: z.string().optional(),
  tool: z.string().optional(),
  args: z.record(z.string(), z.unknown()).optional(),
});

/** A rule a reviewer proposed; `approvals` counts its sign-off (N of M), as a review's does. */
export const allowRuleSchema = z.object({
  id: z.number().int(),
  status: z.enum(['proposed', 'active', 'refused', 'revoked']),
  scope: ruleScopeSchema,
  taskId: z.string(),
  reviewId: z.string(),
  proposedBy: z.string(),
  proposedAt: z.string(),
  approvals: z.array(approvalSchema),
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  revokedBy: z.string().nullable(),
  revokedAt: z.string().nullable(),
  applied: z.number().int(),
});

const review = reviewSchema;
const event = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ type: z.literal(type), ...shape });

/** Every kind of event, in the order they are listed below. */
export const EVENT_TYPES = [
  'task_started',
  'agent_said',
  'review_requested',
  'review_decided',
  'review_progress',
  'review_escalated',
  'review_reminder',
  'task_redirected',
  'review_closed',
  'task_status',
  'delivery_failed',
  'rule_changed',
  'review_claimed',
] as const;

/** What surfaces are told, in order, once each. */
export const engineEventSchema = z.discriminatedUnion('type', [
  event('task_started', { task: taskSchema }),
  /** `streamed`: the live stream (live.ts) that showed these words as they were written, if one did. */
  event('agent_said', { agent: z.string(), text: z.string(), streamed: z.string().optional() }),
  event('review_requested', { review }),
  event('review_decided', { review }),
  /** One more approval counted; the review waits for the rest of its quorum. */
  event('review_progress', { review, by: z.string() }),
  /** Nobody decided by the deadline: `to` were added as reviewers and the deadline moved. */
  event('review_escalated', { review, to: z.array(z.string()), reason: z.string() }),
  /**
   * A review still waiting: a reminder before its deadline (n = 1, 2…), or past it (overdue);
   * `withheld`: why its deadline did not approve it as its checkpoint says (it waits for a person).
   */
  event('review_reminder', {
    review,
    n: z.number().int(),
    overdue: z.boolean(),
    withheld: z.string().optional(),
  }),
  /** The task was given a new goal while agents worked (seed 003); they start over on it. */
  event('task_redirected', { text: z.string(), by: z.string(), abandoned: z.string() }),
  /** A review closed without a decision (its task was cancelled): who closed it and why. */
  event('review_closed', { review, by: z.string(), reason: z.string() }),
  /**
   * `step`: a working task's plan moved and these steps (in words) just started; the plan itself
   * is the task's (`progress`), read when the status is shown.
   */
  event('task_status', {
    status: z.enum(TASK_STATUSES),
    reason: z.string().nullable(),
    step: z.string().optional(),
  }),
  /** An event the surface refused for good (its key, type and the surface's error code): shown as a short fallback. */
  event('delivery_failed', {
    failedKey: z.string(),
    failedType: z.enum(EVENT_TYPES),
    code: z.string(),
    /**
     * For a card that could not be shown, or redrawn for content an edit changed: its review, so
     * a plainer card can still be answered.
     */
    review: review.optional(),
  }),
  /** A rule proposed from one of this task's reviews was proposed, approved by one more, signed off, refused or revoked. */
  /**
   * A review was claimed, released or handed over (`to`: who has it now; null: nobody), by `by`;
   * `away`: handed over because `by` is away until then; `back`: given back as `by` is back.
   */
  event('review_claimed', {
    review,
    by: z.string(),
    to: z.string().nullable(),
    away: z.string().optional(),
    /** `by` is back from being away: their delegate no longer decides in their place. */
    back: z.literal(true).optional(),
  }),
  event('rule_changed', {
    rule: allowRuleSchema,
    /** Who signs it off, as the config file said when it changed. */
    signers: z.object({ reviewers: z.array(z.string()), approvals: z.number().int() }).optional(),
  }),
]);

// EVENT_TYPES lists exactly the union's types (a new event added to one but not the other fails here).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const eventTypesListed: Same<(typeof EVENT_TYPES)[number], z.infer<typeof engineEventSchema>['type']> = true;
void eventTypesListed;
