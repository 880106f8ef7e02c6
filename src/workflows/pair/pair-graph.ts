/**
 * Workflow `pair` (seed 000): two agents alternate for `maxIterations` turns over the whole
 * history, then a person reviews. Revise = feedback: it joins the history, `phase` goes up and
 * the next cycle starts with Agent 1. Approve ends the run; reject ends it as rejected.
 */

import { END, type LangGraphRunnableConfig, START, StateGraph } from '@langchain/langgraph';
import { LABEL, labelled } from '../../llm/prompt-labels.js';
import { BUILT_IN_CHECKPOINTS, BUILT_IN_DESCRIPTIONS } from '../catalog.js';
import { agentFor } from '../shared/agents.js';
import { goalOf } from '../shared/goal.js';
import { contentOf, toChat } from '../shared/messages.js';
import { reviewAsker } from '../shared/review.js';
import { say } from '../shared/say.js';
import type { WorkflowDefinition, WorkflowDeps } from '../shared/types.js';
import { PairState, type PairStateType } from './pair-state.js';
import { DEFAULT_AGENTS, reviewBody } from './prompts.js';

export const DEFAULT_MAX_ITERATIONS = 3;

/** After an agent's turn: the other agent, or the review once the cycle is complete. */
export function nextAfterTurn(turn: number, maxIterations: number): 'agent1' | 'agent2' | 'review' {
  if (turn >= maxIterations) return 'review';
  return turn % 2 === 0 ? 'agent1' : 'agent2';
}

/** After the review: another cycle on feedback, otherwise the end. */
export function nextAfterReview(state: Pick<PairStateType, 'outcome'>): 'agent1' | typeof END {
  return state.outcome === null ? 'agent1' : END;
}

export function buildPairGraph(deps: WorkflowDeps) {
  const askReview = reviewAsker(deps);
  const maxIterations = deps.settings.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  const agents = (['agent1', 'agent2'] as const).map((key) => agentFor(deps, key, DEFAULT_AGENTS[key]));

  const turnNode = (index: 0 | 1) => async (state: PairStateType, config: LangGraphRunnableConfig) => {
    const agent = agents[index] as (typeof agents)[number];
    const reply = await agent.model.invoke(toChat(agent.prompt, state.messages, agent.name), {
      signal: config.signal,
    });
    const content = contentOf(reply);
    say(config, { agent: agent.name, text: content });
    return { messages: [{ role: 'agent' as const, author: agent.name, content }], turn: state.turn + 1 };
  };

  const review = (state: PairStateType) => {
    const cycle = state.messages.slice(-state.turn);
    const decision = askReview({
      kind: 'review',
      title: `Review the agents' work (cycle ${state.phase + 1})`,
      body: reviewBody(cycle),
      round: state.phase + 1,
      labels: { approve: 'Approve', revise: 'Give feedback' },
    });
    // A revise always carries words (reviewAsker asks again otherwise): it is never an approval.
    if (decision.action === 'revise') {
      return {
        messages: [
          {
            role: 'human' as const,
            author: decision.by,
            content: labelled(LABEL.feedback, decision.feedback?.trim() ?? ''),
          },
        ],
        phase: state.phase + 1,
        turn: 0,
      };
    }
    return { outcome: decision.action === 'reject' ? ('rejected' as const) : ('done' as const) };
  };

  return new StateGraph(PairState)
    .addNode('agent1', turnNode(0), { metadata: { title: agents[0]?.name } })
    .addNode('agent2', turnNode(1), { metadata: { title: agents[1]?.name } })
    .addNode('review', review, { metadata: { title: 'Your review' } })
    .addEdge(START, 'agent1')
    .addConditionalEdges('agent1', (s) => nextAfterTurn(s.turn, maxIterations), [
      'agent1',
      'agent2',
      'review',
    ])
    .addConditionalEdges('agent2', (s) => nextAfterTurn(s.turn, maxIterations), [
      'agent1',
      'agent2',
      'review',
    ])
    .addConditionalEdges('review', nextAfterReview, ['agent1', END])
    .compile({ checkpointer: deps.checkpointer });
}

export const pairWorkflow: WorkflowDefinition = {
  name: 'pair',
  description: BUILT_IN_DESCRIPTIONS.pair,
  build: buildPairGraph,
  durability: 'sync',
  checkpoints: () => BUILT_IN_CHECKPOINTS.pair,
  input: (task) => ({ messages: [{ role: 'user', author: task.requester, content: goalOf(task) }] }),
  outcome: (values) =>
    values.outcome === 'rejected' ? { status: 'rejected', reason: 'rejected at review' } : { status: 'done' },
};
