/**
 * Agents of declared workflows and of goal-plan see the conversation as messages, as the pair
 * workflow's do: the task, each agent's answer (their own as the assistant's) and each piece of
 * feedback as a message of its own, never the whole history packed into one. Run at graph level.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BaseMessage } from '@langchain/core/messages';
import { Command, MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { parseWorkflowConfig, workflowSettings } from '../../src/config/workflows.js';
import { buildDeclaredGraph } from '../../src/workflows/declared/declared-graph.js';
import { buildGoalPlanGraph } from '../../src/workflows/goal-plan/goal-plan-graph.js';
import type { RunnableGraph, WorkflowDeps } from '../../src/workflows/shared/types.js';
import { recordingModels } from '../helpers/harness.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'declared', 'release-notes.yml');
const NO_DOCUMENTS = { search: async () => [], count: async () => 0 };

/** What a call carried: each message's type and text. */
const shape = (messages: BaseMessage[]) =>
  messages.map((m) => [m.getType(), typeof m.content === 'string' ? m.content : JSON.stringify(m.content)]);

function run(graph: RunnableGraph) {
  const config = { configurable: { thread_id: 't1' } };
  const decide = (action: 'approve' | 'revise', feedback?: string) =>
    graph.invoke(
      new Command({ resume: { action, feedback, by: 'bob', at: new Date().toISOString() } }),
      config,
    );
  return { start: (input: unknown) => graph.invoke(input, config), decide };
}

describe('what agents are given', () => {
  it('a declared workflow: each agent gets the task, the others’ answers, its own earlier answer and the feedback as separate messages', async () => {
    const { modelFor, calls } = recordingModels();
    const deps: WorkflowDeps = {
      modelFor,
      settings: workflowSettings(
        parseWorkflowConfig(readFileSync(EXAMPLE, 'utf8'), 'team.yml'),
        'release-notes',
      ),
      checkpointer: new MemorySaver(),
      documents: NO_DOCUMENTS,
    };
    const flow = run(buildDeclaredGraph(deps));
    await flow.start({ task: 'v2.3: export to CSV' });
    await flow.decide('approve'); // the draft; then the checks, the editor, the final review
    await flow.decide('revise', 'say what changed for admins'); // back to the draft

    const editor = calls.find((c) => c.agent === 'Editor');
    expect(shape(editor?.messages ?? []).map(([type]) => type)).toEqual([
      'system',
      'human',
      'human',
      'human',
      'human',
    ]);
    const writer = calls.filter((c) => c.agent === 'Writer');
    expect(writer).toHaveLength(2);
    const again = shape(writer[1]?.messages ?? []);
    expect(again[0]?.[0]).toBe('system');
    expect(again[1]).toEqual(['human', 'Task: v2.3: export to CSV']);
    // Its own first draft is the assistant's; the others speak by name; the feedback is last.
    expect(again[2]?.[0]).toBe('ai');
    expect(
      again.filter(([type, text]) => type === 'human' && /^(Product|Legal|Editor): /.test(text ?? '')),
    ).toHaveLength(3);
    expect(again.at(-1)).toEqual(['human', 'Feedback: say what changed for admins']);
  });

  it('goal-plan: the evaluator sees its own goal and the feedback; the planner the whole collaboration; the executor each step and result', async () => {
    const { modelFor, calls } = recordingModels();
    const deps: WorkflowDeps = {
      modelFor,
      settings: workflowSettings(parseWorkflowConfig('', 'team.yml'), 'goal-plan'),
      checkpointer: new MemorySaver(),
      documents: NO_DOCUMENTS,
    };
    const flow = run(buildGoalPlanGraph(deps));
    await flow.start({
      rawGoal: 'migrate the wiki to Markdown',
      collaborationHistory: [
        { role: 'user', content: 'ann: migrate the wiki to Markdown', timestamp: '', author: 'ann' },
      ],
    });
    await flow.decide('revise', 'keep the page history');
    await flow.decide('approve'); // the goal
    await flow.decide('approve'); // the plan: every step runs, then the summary

    const evaluator = calls.filter((c) => c.agent === 'Evaluator').map((c) => shape(c.messages));
    expect(evaluator[0]?.map(([type]) => type)).toEqual(['system', 'human']);
    expect(evaluator[1]?.map(([type]) => type)).toEqual(['system', 'human', 'ai', 'human']);
    expect(evaluator[1]?.at(-1)).toEqual(['human', 'Feedback: keep the page history']);

    const planner = shape(calls.find((c) => c.agent === 'Planner')?.messages ?? []);
    expect(planner.length).toBeGreaterThanOrEqual(5);
    expect(planner.some(([type, text]) => type === 'human' && text?.startsWith('Evaluator: **Goal:**'))).toBe(
      true,
    );

    const executor = calls.filter((c) => c.agent === 'Executor').map((c) => shape(c.messages));
    const second = executor[1] ?? [];
    expect(second.map(([type]) => type)).toEqual(['system', 'human', 'human', 'ai', 'human']);
    expect(second.at(-1)?.[1]).toMatch(/^Now, step 2: /);
  });
});
