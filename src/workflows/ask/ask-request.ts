/**
 * What an agent that runs elsewhere asks a team to sign off on (the HTTP API, the MCP tool): a
 * title and Markdown content, or a tool call it wants to make (its name, arguments and, for
 * edits, the arguments' JSON Schema), and rules that may only make the review stricter than the
 * channel's config (requests.ts `rules`). The same shape whatever the door; `askReviewRequest` makes it
 * the review the `ask` workflow interrupts with.
 */
import { z } from 'zod';
import { readArgSchema } from '../protocol/arg-schema.js';
import {
  type ReviewRequest,
  requestRulesSchema,
  reviewRequestSchema,
  TOOL_CALL_KIND,
} from '../protocol/requests.js';
import { fromStandard } from '../protocol/standard-interrupts.js';

export const toolCallSchema = z
  .object({
    name: z.string().trim().min(1).max(100).describe('The tool to call, as the agent names it.'),
    arguments: z.record(z.string(), z.unknown()).describe('The arguments it would be called with.'),
    /** The arguments' JSON Schema: an edit must fit it. */
    schema: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("The arguments' JSON Schema: a reviewer's edited arguments must fit it."),
    description: z.string().max(10_000).optional().describe('What the call does, for the reviewers.'),
  })
  .strict()
  .superRefine((call, ctx) => {
    // Read as the Edit form reads it: a schema accepted here is one a reviewer's edit is checked by.
    const read = call.schema && readArgSchema(call.schema);
    if (read && 'unreadable' in read)
      ctx.addIssue({
        code: 'custom',
        path: ['schema'],
        message: `not a JSON Schema signoff can check edited arguments with (${read.unreadable})`,
      });
  });

/** An ask reviews content or a tool call: one of them, said as what is wrong. */
export function oneOfContentOrCall(a: { content?: string; toolCall?: unknown }, ctx: z.RefinementCtx) {
  if (a.content !== undefined && a.toolCall !== undefined)
    ctx.addIssue({ code: 'custom', path: ['content'], message: 'give content or a toolCall, not both' });
  if (a.content === undefined && a.toolCall === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['content'],
      message: 'give what to review: content (Markdown) or a toolCall',
    });
}

export const askInputSchema = z
  .object({
    title: z.string().trim().min(1).max(150),
    /** What to review, as Markdown. */
    content: z.string().max(90_000).optional(),
    toolCall: toolCallSchema.optional(),
    rules: requestRulesSchema.optional(),
  })
  .strict()
  .superRefine(oneOfContentOrCall);
export type AskInput = z.infer<typeof askInputSchema>;

/**
 * The body of an ask that came with its title only (`/signoff ask Ship 2.3 tonight?`, an API call
 * with empty content): said, so that no card (Slack's or the terminal's) shows a blank as if
 * something failed to load.
 */
export const NO_DETAILS = 'The asker gave no details beyond the title above.';

/** The review the `ask` workflow interrupts with: signoff's own shape, or a tool call's (HITL). */
export function askReviewRequest(input: AskInput): ReviewRequest {
  const { title, rules } = input;
  if (!input.toolCall) {
    const body = input.content?.trim() ? input.content : NO_DETAILS;
    return reviewRequestSchema.parse({ kind: 'review', title, body, rules });
  }
  const { name, arguments: args, schema, description } = input.toolCall;
  // LangChain's HITLRequest: approve, edit (checked against its schema) or reject the call, and
  // the answer goes back in that shape (standard-answers.ts).
  const hitl = {
    actionRequests: [{ name, args, ...(description ? { description } : {}) }],
    reviewConfigs: [
      {
        actionName: name,
        allowedDecisions: ['approve', 'edit', 'reject'],
        ...(schema ? { argsSchema: schema } : {}),
      },
    ],
  };
  return reviewRequestSchema.parse({ ...fromStandard(hitl), kind: TOOL_CALL_KIND, title, rules });
}
