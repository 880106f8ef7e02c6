/**
 * A plan settled from saved state says only what that state vouches for: the node asking for a
 * review waits, a node cut off stays as it was shown, any other step shown running is over, and no
 * plan is made up where none of this generation was written.
 */
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { settledPlan, stepTitle } from '../../src/engine/plan-steps.js';
import type { Progress, ProgressStep } from '../../src/engine/types.js';

// write → (novelty ‖ feasibility) → review, as the proposal's parallel reviewers run.
const graph = new StateGraph(Annotation.Root({ n: Annotation<number> }))
  .addNode('write', () => ({}))
  .addNode('novelty', () => ({}))
  .addNode('feasibility', () => ({}))
  .addNode('review', () => ({}))
  .addEdge(START, 'write')
  .addEdge('write', 'novelty')
  .addEdge('write', 'feasibility')
  .addEdge(['novelty', 'feasibility'], 'review')
  .addEdge('review', END)
  .compile();

/** A plan as it was shown, each step written as `statuses` reads it: `node:status[:waiting]`. */
const shown = (...steps: string[]): Progress => ({
  generation: 2,
  steps: steps.map((spec) => {
    const [node = '', status, waiting] = spec.split(':');
    return {
      node,
      title: stepTitle(node),
      status: status as ProgressStep['status'],
      ...(waiting ? { waiting: true } : {}),
    };
  }),
});
const task = (progress: Progress | null) => ({ generation: 2, progress });
const statuses = (p: Progress | undefined) =>
  p?.steps.map((s) => `${s.node}:${s.status}${s.waiting ? ':waiting' : ''}`);

describe('settledPlan', () => {
  it('makes the node asking for a review wait and a step still shown running complete', () => {
    const plan = shown('write:in_progress', 'novelty:pending', 'feasibility:pending', 'review:pending');
    const settled = settledPlan(task(plan), graph, [{ name: 'novelty', interrupts: [{ id: 'i1' }] }]);
    expect(statuses(settled)).toEqual([
      'write:complete',
      'novelty:in_progress:waiting',
      'feasibility:pending',
      'review:pending',
    ]);
  });

  it('leaves a sibling cut off beside the asking node as it was shown: it runs again on resume', () => {
    const plan = shown('write:complete', 'novelty:in_progress', 'feasibility:in_progress', 'review:pending');
    const settled = settledPlan(task(plan), graph, [
      { name: 'novelty', interrupts: [{ id: 'i1' }] },
      { name: 'feasibility', interrupts: [] },
    ]);
    expect(statuses(settled)).toEqual([
      'write:complete',
      'novelty:in_progress:waiting',
      'feasibility:in_progress',
      'review:pending',
    ]);
  });

  it('makes a step that waited for a review since answered complete', () => {
    const plan = shown(
      'write:complete',
      'novelty:complete',
      'feasibility:complete',
      'review:in_progress:waiting',
    );
    expect(statuses(settledPlan(task(plan), graph, []))).toEqual([
      'write:complete',
      'novelty:complete',
      'feasibility:complete',
      'review:complete',
    ]);
  });

  it('makes up no plan where none of this generation was written, and writes none that would not change', () => {
    expect(settledPlan(task(null), graph, [{ name: 'review', interrupts: [{ id: 'i1' }] }])).toBeUndefined();
    const older = { ...shown('write:in_progress'), generation: 1 };
    expect(settledPlan(task(older), graph, [])).toBeUndefined();
    const waiting = shown(
      'write:complete',
      'novelty:complete',
      'feasibility:complete',
      'review:in_progress:waiting',
    );
    expect(
      settledPlan(task(waiting), graph, [{ name: 'review', interrupts: [{ id: 'i1' }] }]),
    ).toBeUndefined();
  });
});
