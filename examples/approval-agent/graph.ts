/**
 * A bring-your-own graph for signoff: a LangChain agent with one tool that needs a person's
 * approval (humanInTheLoopMiddleware). signoff turns each tool call into a review card with
 * Approve, Edit (a form with the call's arguments as JSON, checked against the tool's schema: an
 * approval of the edited call, under the same rules as Approve) and Reject, and resumes the agent
 * with the decision. A reply in the thread never approves or edits the call.
 *
 * Use it from the config file:
 *   workflows:
 *     approval-agent:
 *       module: ./examples/approval-agent/graph.ts
 *       description: Drafts an email and sends it once you approve
 */

import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { createAgent, humanInTheLoopMiddleware, tool } from 'langchain';
import { z } from 'zod';

const sendEmail = tool(async ({ to, subject }) => `Sent "${subject}" to ${to}.`, {
  name: 'send_email',
  description: 'Send an email on behalf of the team',
  schema: z.object({
    to: z.string().describe('Recipient address'),
    subject: z.string().describe('Subject line'),
    body: z.string().describe('The message'),
  }),
});

/** What signoff calls: a compiled graph, given the model and checkpointer signoff chose. */
export function createGraph({
  model,
  checkpointer,
}: {
  model: BaseChatModel;
  checkpointer: BaseCheckpointSaver;
}) {
  return createAgent({
    model,
    tools: [sendEmail],
    systemPrompt: 'You help the team with email. Use send_email to send what the task asks for.',
    middleware: [
      humanInTheLoopMiddleware({
        interruptOn: {
          send_email: {
            allowedDecisions: ['approve', 'edit', 'reject'],
            description: 'An email is about to go out',
            argsSchema: {
              type: 'object',
              properties: { to: { type: 'string' }, subject: { type: 'string' }, body: { type: 'string' } },
              required: ['to', 'subject', 'body'],
              // The tool takes these three: an edit that adds a field (a `cc`) is refused in the form.
              additionalProperties: false,
            },
          },
        },
      }),
    ],
    checkpointer,
  }).graph;
}
