/**
 * The API's shapes, in zod: what a client sends to ask for a review, and what it reads back (the
 * same for a create, a read, a long-poll, a callback and the MCP tool). The OpenAPI document is
 * made from these (openapi.ts), so the document and the server cannot drift apart.
 */
import { z } from 'zod';
import { oneOfContentOrCall, requestRulesSchema, toolCallSchema } from '../engine/index.js';

/** What any door's client asks: where, what, and rules only stricter than the channel's. */
export const askFields = {
  /** The Slack channel the card is posted in (one of the client's). */
  channel: z.string().regex(/^[CG][A-Z0-9]{2,}$/, 'expected a Slack channel id (C…)'),
  // The pattern says in the OpenAPI document what trim then min(1) does: blanks are no title.
  title: z.string().trim().min(1).max(150).regex(/\S/, 'give a title that is not only blanks'),
  /** What to review, as Markdown. Either this or toolCall. */
  content: z.string().max(90_000).optional(),
  /** A call the agent wants to make: approved as is, edited (checked against schema), or rejected. */
  toolCall: toolCallSchema.optional(),
  ...requestRulesSchema.shape,
};

export const createAskSchema = z
  .object({
    ...askFields,
    /** Called (POST, signed) once the review is decided, cancelled or refused. */
    callbackUrl: z
      .url({ protocol: /^https?$/ })
      .regex(/^https?:\/\//, 'expected an http or https URL')
      .max(2000)
      .optional(),
  })
  .strict()
  .superRefine(oneOfContentOrCall);
export type CreateAsk = z.infer<typeof createAskSchema>;

export const ASK_STATUSES = [
  'starting',
  'pending',
  'approved',
  'revised',
  'rejected',
  'cancelled',
  'failed',
] as const;
/** Nothing changes any more: a long-poll returns, a callback is sent. */
export const FINAL_ASK_STATUSES: readonly AskStatus[] = [
  'approved',
  'revised',
  'rejected',
  'cancelled',
  'failed',
];
export type AskStatus = (typeof ASK_STATUSES)[number];

/** One approval as the client reads it (the engine's record, less its content hash). */
export const approvalViewSchema = z.object({
  by: z.string().describe('Who approved (a Slack user id).'),
  at: z.string().describe('When (ISO 8601).'),
  for: z
    .string()
    .optional()
    .describe('A named reviewer who was away, in whose place `by` (their delegate) approved.'),
});

export const askViewSchema = z.object({
  id: z.uuid(),
  status: z.enum(ASK_STATUSES),
  channel: z.string(),
  title: z.string(),
  createdAt: z.string(),
  /** While pending: who may decide, the approvals so far, and when its timeout applies. */
  reviewers: z
    .array(z.string())
    .optional()
    .describe(
      'While pending: who may decide, as named (including those who approved already: they may still revise or reject).',
    ),
  approvals: z
    .object({
      count: z.number().int(),
      needed: z.number().int(),
      /** The card shows who approved so far; an agent reading the API sees the same. */
      given: z
        .array(approvalViewSchema)
        .describe(
          'The approvals counted so far towards a checkpoint that needs N of M, in the order given (`count` of them): who, when, and for whom (a delegate).',
        ),
    })
    .optional()
    .describe('While pending: how many approvals are counted, of how many needed, and whose.'),
  dueAt: z.string().nullable().optional(),
  /** Once decided. */
  decision: z
    .object({
      by: z.string(),
      at: z.string(),
      /** Set when a timer decided (the checkpoint's default action), not a person. */
      automatic: z.string().optional(),
      feedback: z.string().optional(),
      /** A tool call approved: the arguments to run it with. */
      arguments: z.record(z.string(), z.unknown()).optional(),
      edited: z.boolean().optional(),
      /**
       * Beside `by` (the last to decide), which says one name where a quorum (N of M) had several:
       * what an agent reads to say who approved. Empty when a timer or a rule decided, or the
       * answer is revised or rejected (no approval made it).
       */
      approvals: z
        .array(approvalViewSchema)
        .describe(
          'Everyone whose approval made the decision, in the order they approved: one for a single approval, several for a checkpoint that needs N of M; empty when it was decided automatically or revised or rejected.',
        ),
    })
    .optional(),
  /**
   * Why, in a sentence: failed (the card could not be posted, for good), cancelled, or waiting on
   * a task that failed (someone in the channel may retry it).
   */
  reason: z.string().optional(),
  /** Its task, as `signoff tasks`, `signoff events` and the audit name it, once started. */
  taskId: z.string().optional(),
  /** The thread in Slack, once the card is posted. */
  slack: z.object({ channel: z.string(), ts: z.string() }).optional(),
});
export type AskView = z.infer<typeof askViewSchema>;

export const apiErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    /** What to do about it, in a sentence. */
    message: z.string(),
    /** Per field, what is wrong with it. */
    fields: z.record(z.string(), z.string()).optional(),
  }),
});
