/**
 * The review protocol between a workflow and whoever answers it: what a workflow passes to
 * `interrupt()` when it needs a person (a review request), and what it is resumed with (a
 * decision). Defined here, beside the workflows, so that they need nothing from the engine; the
 * engine and the surfaces import it from here.
 */
import { z } from 'zod';

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
  /** A hash of the content the person decided on (what they saw). */
  contentHash: z.string().optional(),
  /** With a quorum (N of M): everyone whose approval counted, in order; `by` is the last. */
  approvals: z.array(z.object({ by: z.string(), at: z.string() })).optional(),
});
export type Decision = z.infer<typeof decisionSchema>;
