/**
 * Workflow `ask`: one review, asked by an agent that runs elsewhere (the HTTP API, the MCP tool)
 * or by a person (`/signoff ask Ship 2.3 tonight?`). Its one step interrupts with the review
 * (ask-request.ts) and ends with whatever was decided: the door reads the decision from the
 * review itself. No model is called.
 */
import { Annotation, END, interrupt, START, StateGraph } from '@langchain/langgraph';
import { BUILT_IN_CHECKPOINTS, BUILT_IN_DESCRIPTIONS } from '../catalog.js';
import { decisionSchema } from '../protocol/requests.js';
import type { WorkflowDefinition, WorkflowDeps } from '../shared/types.js';
import { type AskInput, askInputSchema, askReviewRequest } from './ask-request.js';

const AskState = Annotation.Root({
  ask: Annotation<AskInput>(),
  /** The review's answer: a decision, or a tool call's answer in its own shape (HITL decisions). */
  answer: Annotation<unknown>(),
});

/** Whether the answer turns down what was asked: a reject, or every call rejected. */
export function rejected(answer: unknown): boolean {
  const decision = decisionSchema.safeParse(answer);
  if (decision.success) return decision.data.action === 'reject';
  const calls = (answer as { decisions?: { type?: string }[] } | null)?.decisions;
  return Array.isArray(calls) && calls.length > 0 && calls.every((d) => d.type === 'reject');
}

export function buildAskGraph(deps: WorkflowDeps) {
  return new StateGraph(AskState)
    .addNode('review', (state) => ({ answer: interrupt(askReviewRequest(state.ask)) }), {
      metadata: { title: 'Your review' },
    })
    .addEdge(START, 'review')
    .addEdge('review', END)
    .compile({ checkpointer: deps.checkpointer });
}

export const askWorkflow: WorkflowDefinition = {
  name: 'ask',
  description: BUILT_IN_DESCRIPTIONS.ask,
  build: buildAskGraph,
  // A person's `/signoff ask <question>`: their words are the title, and the content when too long for one.
  input: (task) => ({
    ask: askInputSchema.parse(
      task.input ?? {
        title: task.text.length > 150 ? `${task.text.slice(0, 149)}…` : task.text,
        content: task.text.length > 150 ? task.text : '',
      },
    ),
  }),
  durability: 'exit',
  checkpoints: () => BUILT_IN_CHECKPOINTS.ask,
  outcome: (values) => {
    if (rejected(values.answer)) return { status: 'rejected', reason: 'rejected at review' };
    // Sent back with words: the asker acts on them; the ask itself is over. Said as what happened
    // ("sent back" alone read like a delivery state, not a person's answer).
    const d = decisionSchema.safeParse(values.answer);
    if (!d.success || d.data.action !== 'revise') return { status: 'done' };
    const words = d.data.feedback?.trim();
    return { status: 'done', reason: `the asker got the reviewer's words back${words ? `: ${words}` : ''}` };
  },
};
