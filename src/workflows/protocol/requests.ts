/**
 * The review protocol between a workflow and whoever answers it: what a workflow passes to
 * `interrupt()` when it needs a person (a review request), and what it is resumed with (a
 * decision). Beside it in this folder: the same protocol in LangChain's standard shapes (tool
 * calls: standard-interrupts.ts and its answers), how a request is read whatever its shape
 * (review-request.ts), and how an Edit form is checked. Defined beside the workflows, so that
 * they need nothing from the engine; the engine (and through it the surfaces) imports it.
 */
import { z } from 'zod';

/**
 * approve; edit: approve with changed values (a tool call's arguments: the Edit form); revise:
 * send words back (feedback); reject.
 */
export const ACTIONS = ['approve', 'edit', 'revise', 'reject'] as const;
export type Action = (typeof ACTIONS)[number];
/** What a review offers when it does not say: `edit` belongs to tool calls only. */
export const DEFAULT_ACTIONS: readonly Action[] = ['approve', 'revise', 'reject'];

/** The checkpoint of every review of a standard interrupt (tool calls): `checkpoints.tool_call`. */
export const TOOL_CALL_KIND = 'tool_call';

/**
 * The checkpoint of the review a task pauses with at its budget (the engine's own, for every
 * workflow): `checkpoints.budget` sets who may let it spend more.
 */
export const BUDGET_CHECKPOINT = 'budget';

/** Approve and Edit both let what was asked go ahead: the same rules (self-approval, N of M) apply. */
export const approves = (action: Action) => action === 'approve' || action === 'edit';

/** A form's text field holds this much (Slack's plain_text_input: 3,000). */
export const FIELD_MAX = 3000;

/** A field of the Edit form: text (prefilled with `initial`), or one of `choices` (a menu). */
export const reviewFieldSchema = z.object({
  id: z.string().regex(/^[a-z][a-z0-9_]*$/),
  label: z.string().min(1).max(48),
  multiline: z.boolean().default(false),
  optional: z.boolean().default(true),
  initial: z.string().max(FIELD_MAX).optional(),
  /** A menu instead of text: the answer is one of these values. No choice is preselected. */
  choices: z
    .array(z.object({ value: z.string().min(1).max(150), label: z.string().min(1).max(75) }))
    .min(1)
    .max(100)
    .optional(),
});
export type ReviewField = z.infer<typeof reviewFieldSchema>;

/**
 * An Edit counted towards a quorum (N of M): the values it gave, which the review now shows and
 * the rest of the quorum approves. `n` counts the edits of this review.
 */
export const pendingEditSchema = z.object({
  by: z.string().min(1),
  at: z.string(),
  n: z.number().int().min(1),
  values: z.record(z.string(), z.string()),
  feedback: z.string().max(3000).optional(),
});
export type PendingEdit = z.infer<typeof pendingEditSchema>;

/** A Slack user id (U…/W…) or user group id (S…): who may decide. */
const reviewerId = z
  .string()
  .regex(/^([UW][A-Z0-9]{2,}|S[A-Z0-9]{2,})$/, 'expected a Slack user id (U…) or user group id (S…)');

/**
 * Rules a request asks for its review, which may only make it stricter than its checkpoint in the
 * config file (sign-off-rules.ts `narrowRules`): an agent asking through a door names who should
 * decide, how many must approve, how soon.
 */
export const requestRulesSchema = z
  .object({
    /** Who may decide: among the checkpoint's reviewers (any person, if it allows anyone). */
    reviewers: z
      .array(reviewerId)
      .min(1)
      .max(20)
      .optional()
      .describe(
        "Who may decide: Slack user ids (U…) or user group ids (S…), among the channel's reviewers for this checkpoint. Only stricter than the channel's rules.",
      ),
    /** Approvals needed: at least the checkpoint's. */
    approvals: z
      .number()
      .int()
      .min(1)
      .max(20)
      .optional()
      .describe("How many different people must approve: at least the channel's number for this checkpoint."),
    /** Seconds until the checkpoint's timeout applies: at most the checkpoint's. */
    timeoutSeconds: z
      .number()
      .int()
      .min(60)
      .max(30 * 86_400)
      .optional()
      .describe("Seconds until the checkpoint's timeout applies: at most the channel's."),
  })
  .strict();
export type RequestRules = z.infer<typeof requestRulesSchema>;

/** What a workflow passes to `interrupt()` when it needs a person. */
export const reviewRequestSchema = z.object({
  /** The checkpoint's name; the config file's `checkpoints.<kind>` applies to it. */
  kind: z.string().regex(/^[a-z][a-z0-9_]*$/, 'kind must be a lowercase checkpoint name'),
  title: z.string().min(1).max(150),
  /** The content to review, as Markdown. */
  body: z.string().max(100_000),
  actions: z
    .array(z.enum(ACTIONS))
    .min(1)
    .default([...DEFAULT_ACTIONS]),
  /** Button labels where the workflow's words differ (e.g. approve → "Accept goal"). */
  labels: z.partialRecord(z.enum(ACTIONS), z.string().min(1).max(30)).default({}),
  /**
   * What the words typed for `revise` are, where they are not feedback on the content (a
   * proposal's "The query to search instead"): the Revise box's label, and the terminal's prompt.
   */
  feedbackLabel: z.string().trim().min(1).max(100).optional(),
  /**
   * Words the revise may not be, and why (a proposal's queries searched before): a decision saying
   * one of them, case and spacing aside, is refused before anything is recorded (refused-words.ts).
   * `because` goes on from `"<the words typed>" …`: "was searched before, so …"; `wordless`, set
   * where the words must have some (a query to search), says why words with no letter or digit
   * ("???") are refused, the same way.
   */
  refusedWords: z
    .object({
      words: z.array(z.string().max(3000)),
      because: z.string().trim().min(1).max(200),
      wordless: z.string().trim().min(1).max(200).optional(),
    })
    .optional(),
  /**
   * What Reject does where it does not end the task, in a sentence (a proposal's Search more: the
   * agents search again). Said by its confirmation; such a review is decided on its card alone,
   * never by a list's "Reject selected". Absent: a reject ends the task (a tool call's: the call
   * does not run, and its agent goes on).
   */
  rejectGoesOn: z.string().trim().min(1).max(150).optional(),
  round: z.number().int().min(1).default(1),
  /** What Edit asks (a tool call's decision and arguments, per call): at most 10 calls' worth. */
  fields: z.array(reviewFieldSchema).max(20).default([]),
  /**
   * Set when the interrupt came in a standard shape (LangChain's HITLRequest, the Agent Inbox's
   * HumanInterrupt list): the value, so that the decision is answered in that shape.
   */
  origin: z.object({ format: z.enum(['hitl', 'agent_inbox']), value: z.unknown() }).optional(),
  /** Set by the engine when an Edit was counted towards a quorum: what is now being approved. */
  edit: pendingEditSchema.optional(),
  /** Stricter rules than the checkpoint's, asked by the workflow (a review asked through a door). */
  rules: requestRulesSchema.optional(),
});
export type ReviewRequest = z.infer<typeof reviewRequestSchema>;

/**
 * Whether a review takes a person's words as its revise (feedback, or what `feedbackLabel` says
 * they are): its own shape with a Revise; never a tool call's, whose words can only reject it.
 */
export const takesWords = (r: ReviewRequest) => r.origin === undefined && r.actions.includes('revise');
export type ReviewRequestInput = z.input<typeof reviewRequestSchema>;

/** What the engine resumes the interrupt with. */
export const decisionSchema = z.object({
  action: z.enum(ACTIONS),
  feedback: z.string().max(3000).optional(),
  values: z.record(z.string(), z.string()).default({}),
  by: z.string().min(1),
  at: z.string(),
  /** Set when the decision was not made by a person (a timeout's default action, a rule). */
  automatic: z.string().optional(),
  /**
   * The rule that approved it: a checkpoint's rule in the config file (`name`), or a rule a team
   * signed off (`id`, who proposed it and who approved it).
   */
  rule: z
    .object({
      name: z.string(),
      id: z.number().int().optional(),
      proposedBy: z.string().optional(),
      approvedBy: z.array(z.string()).optional(),
    })
    .optional(),
  /** A hash of the content the person decided on (what they saw). */
  contentHash: z.string().optional(),
  /** With a quorum (N of M): everyone whose approval counted, in order; `by` is the last. */
  /** Who approved, and in whose place (`for`: a named reviewer away). */
  approvals: z.array(z.object({ by: z.string(), at: z.string(), for: z.string().optional() })).optional(),
});
export type Decision = z.infer<typeof decisionSchema>;
