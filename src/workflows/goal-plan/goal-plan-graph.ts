/**
 * Workflow `goal-plan` (seed 001): the goal and the plan are agreed with people, then the plan
 * runs on its own (the seed's `plan` node is `generate_plan` here: `plan` names the state field).
 * evaluate → goal review (accept, or refine with feedback, any number of rounds)
 * → plan → plan review (approve; modify with feedback, the revision says what changed and
 * `planChangeLog` keeps it; or reject, which ends the task as rejected) → execute every step with
 * no further questions, one graph step per plan step, each reported → summary.
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { END, type LangGraphRunnableConfig, START, StateGraph } from '@langchain/langgraph';
import { LABEL, labelled } from '../../llm/prompt-labels.js';
import { askStructured } from '../../llm/structured.js';
import { BUILT_IN_CHECKPOINTS, BUILT_IN_DESCRIPTIONS } from '../catalog.js';
import { agentFor } from '../shared/agents.js';
import { goalOf } from '../shared/goal.js';
import { contentOf, type Turn, toChat } from '../shared/messages.js';
import { decidedBy, reviewAsker } from '../shared/review.js';
import { say } from '../shared/say.js';
import type { WorkflowDefinition, WorkflowDeps } from '../shared/types.js';
import {
  GoalPlanState,
  type GoalPlanStateType,
  goalEvaluationSchema,
  type HistoryEntry,
  planSchema,
} from './goal-plan-state.js';
import { DEFAULT_AGENTS, numbered } from './prompts.js';

export const afterGoalReview = (s: Pick<GoalPlanStateType, 'phase'>) =>
  s.phase === 'refine_goal' ? 'refine_goal' : 'generate_plan';

export const afterPlanReview = (s: Pick<GoalPlanStateType, 'phase'>) =>
  s.phase === 'revise_plan' ? 'revise_plan' : s.phase === 'execute' ? 'execute' : END;

export const afterStep = (s: Pick<GoalPlanStateType, 'plan' | 'stepResults'>) =>
  s.stepResults.length < s.plan.length ? 'execute' : 'summarize';

const entry = (
  role: HistoryEntry['role'],
  content: string,
  about: Pick<HistoryEntry, 'author' | 'feedback'> = {},
): HistoryEntry => ({ role, content, timestamp: new Date().toISOString(), ...about });

/** An agent's entry, `Name: text`, with the name kept apart so that the agent knows its own words. */
const agentEntry = (author: string, text: string) => entry('agent', `${author}: ${text}`, { author });

/**
 * The collaboration as `speaker` sees it: the goal, then each entry a message of its own, its own
 * answers as the assistant's and feedback as feedback (as the pair workflow does).
 */
function conversation(system: string, s: GoalPlanStateType, speaker: string): BaseMessage[] {
  const turns = s.collaborationHistory.map((e): Turn => {
    const author = e.author ?? '';
    if (e.role === 'user') return { role: 'user', author, content: labelled(LABEL.goal, s.rawGoal) };
    if (e.role === 'human')
      return {
        role: 'human',
        author,
        content: e.feedback ? labelled(LABEL.feedback, e.feedback) : e.content,
      };
    const prefix = `${author}: `;
    const content = author && e.content.startsWith(prefix) ? e.content.slice(prefix.length) : e.content;
    return { role: 'agent', author, content };
  });
  return toChat(system, turns, speaker);
}

/** What the executor is asked for plan step `i` (0-based). */
const stepAsked = (s: GoalPlanStateType, i: number) => `Now, step ${i + 1}: ${s.plan[i]}`;

/** The executor's conversation: the agreed goal and plan, then each step asked and its result. */
function stepsSoFar(system: string, s: GoalPlanStateType): BaseMessage[] {
  return [
    new SystemMessage(system),
    new HumanMessage(`${labelled(LABEL.goal, s.goalSpec ?? s.rawGoal)}\n\nPlan:\n${numbered(s.plan)}`),
    ...s.stepResults.flatMap((result, i) => [new HumanMessage(stepAsked(s, i)), new AIMessage(result)]),
  ];
}

export function buildGoalPlanGraph(deps: WorkflowDeps) {
  const askReview = reviewAsker(deps);
  const agent = (key: keyof typeof DEFAULT_AGENTS) => agentFor(deps, key, DEFAULT_AGENTS[key]);
  const evaluator = agent('evaluator');
  const planner = agent('planner');
  const executor = agent('executor');

  /** evaluate and refine_goal: the same structured answer, with the feedback when there is some. */
  const evaluateGoal = async (s: GoalPlanStateType, config: LangGraphRunnableConfig) => {
    const e = await askStructured(
      evaluator.model,
      goalEvaluationSchema,
      conversation(evaluator.prompt, s, evaluator.name),
      config.signal,
    );
    const text = `**Goal:** ${e.goalSpec}\n**Feasibility:** ${e.feasibility}\n**Notes:** ${e.notes}`;
    say(config, { agent: evaluator.name, text });
    return {
      goalSpec: e.goalSpec,
      goalFeasibility: e.feasibility,
      evaluationNotes: e.notes,
      phase: 'goal_review' as const,
      collaborationHistory: [agentEntry(evaluator.name, text)],
    };
  };

  const presentGoal = (s: GoalPlanStateType) => {
    const d = askReview({
      kind: 'goal',
      title: `Is this the goal? (round ${s.goalIteration})`,
      body: `**Goal:** ${s.goalSpec}\n\n**Feasibility:** ${s.goalFeasibility}\n\n**Notes:** ${s.evaluationNotes}`,
      round: s.goalIteration,
      actions: ['approve', 'revise'],
      labels: { approve: 'Accept goal', revise: 'Refine' },
    });
    // A revise always carries words (reviewAsker asks again otherwise): it is never an approval.
    const feedback = d.feedback?.trim() ?? '';
    if (d.action === 'revise') {
      return {
        phase: 'refine_goal' as const,
        userGoalFeedback: feedback,
        goalIteration: s.goalIteration + 1,
        collaborationHistory: [
          entry('human', `${decidedBy(d)} on the goal: ${feedback}`, { author: decidedBy(d), feedback }),
        ],
      };
    }
    return {
      phase: 'plan' as const,
      collaborationHistory: [entry('human', `${decidedBy(d)} accepted the goal`, { author: decidedBy(d) })],
    };
  };

  /** plan and revise_plan: steps for the agreed goal; a revision answers the feedback. */
  const makePlan = async (s: GoalPlanStateType, config: LangGraphRunnableConfig) => {
    const revising = s.phase === 'revise_plan';
    const p = await askStructured(
      planner.model,
      planSchema,
      conversation(planner.prompt, s, planner.name),
      config.signal,
    );
    const changes = revising ? p.changes.trim() || `Revised for: ${s.userPlanFeedback}` : '';
    const text = `${numbered(p.steps)}${changes ? `\n\n**What changed:** ${changes}` : ''}`;
    say(config, { agent: planner.name, text });
    return {
      plan: p.steps,
      phase: 'plan_review' as const,
      planChangeLog: revising ? [`Round ${s.planIteration}: ${changes}`] : [],
      collaborationHistory: [agentEntry(planner.name, text)],
    };
  };

  const presentPlan = (s: GoalPlanStateType) => {
    const lastChange = s.planChangeLog.at(-1);
    const d = askReview({
      kind: 'plan',
      title: `Approve the plan? (round ${s.planIteration})`,
      body: `${numbered(s.plan)}${lastChange && s.planIteration > 1 ? `\n\n**What changed:** ${lastChange}` : ''}`,
      round: s.planIteration,
      actions: ['approve', 'revise', 'reject'],
      labels: { approve: 'Approve plan', revise: 'Modify', reject: 'Reject' },
    });
    const feedback = d.feedback?.trim() ?? '';
    if (d.action === 'revise') {
      return {
        phase: 'revise_plan' as const,
        userPlanFeedback: feedback,
        planIteration: s.planIteration + 1,
        collaborationHistory: [
          entry('human', `${decidedBy(d)} on the plan: ${feedback}`, { author: decidedBy(d), feedback }),
        ],
      };
    }
    if (d.action === 'reject') {
      return {
        phase: 'rejected' as const,
        collaborationHistory: [entry('human', `${decidedBy(d)} rejected the plan`, { author: decidedBy(d) })],
      };
    }
    return {
      phase: 'execute' as const,
      collaborationHistory: [entry('human', `${decidedBy(d)} approved the plan`, { author: decidedBy(d) })],
    };
  };

  /** One plan step per graph step: each is reported, and a crash resumes at the step it was on. */
  const execute = async (s: GoalPlanStateType, config: LangGraphRunnableConfig) => {
    const index = s.stepResults.length;
    const step = s.plan[index] as string;
    const reply = await executor.model.invoke(
      [...stepsSoFar(executor.prompt, s), new HumanMessage(stepAsked(s, index))],
      { signal: config.signal },
    );
    const result = contentOf(reply);
    say(config, {
      agent: executor.name,
      text: `**Step ${index + 1}/${s.plan.length}: ${step}**\n\n${result}`,
    });
    return { stepResults: [result] };
  };

  const summarize = async (s: GoalPlanStateType, config: LangGraphRunnableConfig) => {
    const reply = await executor.model.invoke(
      [
        ...stepsSoFar(executor.prompt, s),
        new HumanMessage('Summarise what was done for the goal, step by step, in a few lines.'),
      ],
      { signal: config.signal },
    );
    const summary = contentOf(reply);
    say(config, { agent: executor.name, text: `**Summary**\n\n${summary}` });
    return { summary, phase: 'done' as const };
  };

  return new StateGraph(GoalPlanState)
    .addNode('evaluate', evaluateGoal, { metadata: { title: 'Understand the goal' } })
    .addNode('present_goal', presentGoal, { metadata: { title: 'Your review of the goal' } })
    .addNode('refine_goal', evaluateGoal, { metadata: { title: 'Refine the goal' } })
    .addNode('generate_plan', makePlan, { metadata: { title: 'Write the plan' } })
    .addNode('present_plan', presentPlan, { metadata: { title: 'Your review of the plan' } })
    .addNode('revise_plan', makePlan, { metadata: { title: 'Revise the plan' } })
    .addNode('execute', execute, { metadata: { title: 'Carry out the plan' } })
    .addNode('summarize', summarize, { metadata: { title: 'Summarise' } })
    .addEdge(START, 'evaluate')
    .addEdge('evaluate', 'present_goal')
    .addConditionalEdges('present_goal', afterGoalReview, ['refine_goal', 'generate_plan'])
    .addEdge('refine_goal', 'present_goal')
    .addEdge('generate_plan', 'present_plan')
    .addConditionalEdges('present_plan', afterPlanReview, ['revise_plan', 'execute', END])
    .addEdge('revise_plan', 'present_plan')
    .addConditionalEdges('execute', afterStep, ['execute', 'summarize'])
    .addEdge('summarize', END)
    .compile({ checkpointer: deps.checkpointer });
}

export const goalPlanWorkflow: WorkflowDefinition = {
  name: 'goal-plan',
  description: BUILT_IN_DESCRIPTIONS['goal-plan'],
  build: buildGoalPlanGraph,
  // Execution runs many steps without a person: each step's result is saved as it completes.
  durability: 'sync',
  checkpoints: () => BUILT_IN_CHECKPOINTS['goal-plan'],
  input: (task) => ({
    rawGoal: goalOf(task),
    collaborationHistory: [entry('user', `${task.requester}: ${goalOf(task)}`, { author: task.requester })],
  }),
  outcome: (values) =>
    values.phase === 'rejected'
      ? { status: 'rejected', reason: 'the plan was rejected' }
      : { status: 'done' },
};
