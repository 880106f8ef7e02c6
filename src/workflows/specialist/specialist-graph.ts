/**
 * Workflow `specialist` (seed 002): a planner routes the task to one specialist; a person reviews
 * the result. Revise goes straight back to the specialist with the feedback and the whole history,
 * as many times as needed; approve completes; reject ends. Review can be switched off. A failed
 * agent says so in the thread and offers Retry (seed 002's error rules).
 */
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { END, type LangGraphRunnableConfig, START, StateGraph } from '@langchain/langgraph';
import { z } from 'zod';
import { describeFailure, failureLogLevel } from '../../failures.js';
import { askStructured } from '../../llm/structured.js';
import { BUILT_IN_CHECKPOINTS, BUILT_IN_DESCRIPTIONS, DEFAULT_SPECIALISTS } from '../catalog.js';
import { type Agent, agentFor } from '../shared/agents.js';
import { goalOf } from '../shared/goal.js';
import { contentOf } from '../shared/messages.js';
import { reviewAsker } from '../shared/review.js';
import { say } from '../shared/say.js';
import type { WorkflowDefinition, WorkflowDeps } from '../shared/types.js';
import { plannerPrompt, renderHistory, specialistPrompt, title } from './prompts.js';
import { SpecialistState, type SpecialistStateType } from './specialist-state.js';

type Node = 'planner' | 'specialist_agent' | 'review' | 'failed' | typeof END;

/** Seed 002 routing: a failure waits for a person; otherwise review when enabled (property 1/5). */
export const afterPlanner = (s: Pick<SpecialistStateType, 'failure'>): Node =>
  s.failure ? 'failed' : 'specialist_agent';
export const afterSpecialist = (s: Pick<SpecialistStateType, 'failure'>, reviewOn: boolean): Node =>
  s.failure ? 'failed' : reviewOn ? 'review' : END;
/** Approve and reject end (property 3); revise goes directly back to the specialist (property 4). */
export const afterReview = (s: Pick<SpecialistStateType, 'outcome'>): Node =>
  s.outcome ? END : 'specialist_agent';
export const afterFailure = (s: Pick<SpecialistStateType, 'outcome' | 'specialist'>): Node =>
  s.outcome ? END : s.specialist ? 'specialist_agent' : 'planner';

/** The planner's routing: one of the configured specialists, as a structured answer (an enum). */
export const routingSchema = (specialists: string[]) =>
  z.object({
    specialist: z
      .enum(specialists as [string, ...string[]])
      .describe('The one specialist best placed to do the task'),
  });

export function buildSpecialistGraph(deps: WorkflowDeps) {
  const askReview = reviewAsker(deps);
  const specialists = deps.settings.specialists ?? DEFAULT_SPECIALISTS;
  const reviewOn = deps.settings.review;
  const plannerConfig = deps.settings.agents.planner;
  const plannerName = plannerConfig?.name ?? 'Planner';
  const planner = deps.modelFor({ name: plannerName, config: plannerConfig });
  const makeAgent = (specialist: string) =>
    agentFor(deps, specialist, {
      name: `${title(specialist)} specialist`,
      prompt: specialistPrompt(specialist),
    });
  // Made when the graph is built, as every workflow's agents are (which is how they are named);
  // a task routed before the list changed still gets its specialist.
  const agents = new Map(specialists.map((specialist) => [specialist, makeAgent(specialist)]));
  const specialistAgent = (specialist: string): Agent => agents.get(specialist) ?? makeAgent(specialist);

  const plan = async (state: SpecialistStateType, config: LangGraphRunnableConfig) => {
    try {
      // An enum, not a word found in free text: nothing in the task can route it elsewhere.
      const { specialist } = await askStructured(
        planner,
        routingSchema(specialists),
        [
          new SystemMessage(plannerConfig?.prompt ?? plannerPrompt(specialists)),
          new HumanMessage(state.originalTask),
        ],
        config.signal,
      );
      const result = `Routing this to the ${specialist} specialist.`;
      say(config, { agent: plannerName, text: result });
      return {
        specialist,
        failure: null,
        history: [{ iteration: state.iteration, agent: plannerName, result }],
      };
    } catch (error) {
      return failed(config, plannerName, 'planner', error);
    }
  };

  const work = async (state: SpecialistStateType, config: LangGraphRunnableConfig) => {
    const agent = specialistAgent(state.specialist as string);
    try {
      const answer = await agent.model.invoke(
        [new SystemMessage(agent.prompt), new HumanMessage(renderHistory(state.originalTask, state.history))],
        { signal: config.signal },
      );
      const result = contentOf(answer);
      say(config, { agent: agent.name, text: result });
      return { result, failure: null, history: [{ iteration: state.iteration, agent: agent.name, result }] };
    } catch (error) {
      return failed(config, agent.name, 'specialist', error);
    }
  };

  const failed = async (
    config: LangGraphRunnableConfig,
    name: string,
    agent: 'planner' | 'specialist',
    error: unknown,
  ) => {
    if (config.signal?.aborted) throw error;
    // The thread shows a coded sentence, never the provider's words; the log keeps the error.
    const { code, sentence: message } = describeFailure(error);
    deps.logger?.[failureLogLevel(code)](
      { err: error, failure: code, agent: name },
      'a specialist step failed',
    );
    say(config, { agent: name, text: `I could not finish this step. ${message}` });
    return { failure: { agent, message } };
  };

  const review = (state: SpecialistStateType) => {
    const agent = specialistAgent(state.specialist as string);
    const decision = askReview({
      kind: 'review',
      title: `Approve the ${agent.name}'s result?`,
      body: state.result ?? '',
      round: state.iteration,
      labels: { revise: 'Revise' },
    });
    // A revise always carries words (reviewAsker asks again otherwise): it is never an approval.
    if (decision.action === 'revise') {
      return {
        iteration: state.iteration + 1,
        history: [
          { iteration: state.iteration, agent: 'HITL', userFeedback: decision.feedback?.trim() ?? '' },
        ],
      };
    }
    return { outcome: decision.action === 'reject' ? ('rejected' as const) : ('done' as const) };
  };

  const retry = (state: SpecialistStateType) => {
    const failure = state.failure as NonNullable<SpecialistStateType['failure']>;
    const decision = askReview({
      kind: 'retry',
      title: `The ${failure.agent} failed. Retry?`,
      body: failure.message,
      round: state.iteration,
      labels: { approve: 'Retry', revise: 'Retry with instructions', reject: 'Give up' },
    });
    if (decision.action === 'reject') return { outcome: 'rejected' as const, failure: null };
    const feedback = decision.action === 'revise' ? decision.feedback?.trim() : undefined;
    return {
      failure: null,
      history: feedback ? [{ iteration: state.iteration, agent: 'HITL', userFeedback: feedback }] : [],
    };
  };

  return new StateGraph(SpecialistState)
    .addNode('planner', plan, { metadata: { title: 'Choose a specialist' } })
    .addNode('specialist_agent', work, { metadata: { title: 'The specialist works' } })
    .addNode('review', review, { metadata: { title: 'Your review' } })
    .addNode('failed', retry, { metadata: { title: 'Retry after a failure' } })
    .addEdge(START, 'planner')
    .addConditionalEdges('planner', afterPlanner, ['specialist_agent', 'failed'])
    .addConditionalEdges('specialist_agent', (s) => afterSpecialist(s, reviewOn), ['review', 'failed', END])
    .addConditionalEdges('review', afterReview, ['specialist_agent', END])
    .addConditionalEdges('failed', afterFailure, ['planner', 'specialist_agent', END])
    .compile({ checkpointer: deps.checkpointer });
}

export const specialistWorkflow: WorkflowDefinition = {
  name: 'specialist',
  description: BUILT_IN_DESCRIPTIONS.specialist,
  build: buildSpecialistGraph,
  durability: 'sync',
  // `retry` is the card a failed agent offers (seed 002).
  checkpoints: () => BUILT_IN_CHECKPOINTS.specialist,
  input: (task) => ({ originalTask: goalOf(task) }),
  outcome: (values) =>
    values.outcome === 'rejected' ? { status: 'rejected', reason: 'rejected at review' } : { status: 'done' },
};
