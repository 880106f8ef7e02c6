/** Workflow goal-plan (seed 001) through the engine with the offline model. */
import { describe, expect, it } from 'vitest';
import type { GoalPlanStateType } from '../../src/workflows/goal-plan/goal-plan-state.js';
import { harnessPerFile } from '../helpers/harness.js';

const t = harnessPerFile('goal_plan');

const said = (taskId: string, agent: string) =>
  t.h.delivered
    .filter((e) => e.taskId === taskId && e.event.type === 'agent_said')
    .map((e) => e.event as { agent: string; text: string })
    .filter((e) => e.agent === agent);

const stateOf = async (taskId: string) =>
  (await t.h.checkpointer.getTuple({ configurable: { thread_id: taskId } }))?.checkpoint
    .channel_values as unknown as GoalPlanStateType;

const decide = (reviewId: string, action: 'approve' | 'revise' | 'reject', feedback?: string) =>
  t.h.engine.decide({ reviewId, actor: { id: 'bob' }, action, feedback });

describe('goal-plan', () => {
  it('refines the goal three times, then plans, and carries out every step without asking', async () => {
    const task = await t.h.start('goal-plan', 'migrate the wiki to Markdown');
    let review = await t.h.nextReview(task.id);
    expect(review.request).toMatchObject({ kind: 'goal', round: 1, actions: ['approve', 'revise'] });
    for (const [i, feedback] of [
      'keep the page history',
      'only the engineering space',
      'finish by Friday',
    ].entries()) {
      await decide(review.id, 'revise', feedback);
      review = await t.h.nextReview(task.id, review.id);
      expect(review.request.round).toBe(i + 2);
      expect(review.request.body).toContain(feedback);
    }
    await decide(review.id, 'approve');
    const planReview = await t.h.nextReview(task.id, review.id);
    expect(planReview.request.kind).toBe('plan');
    await decide(planReview.id, 'approve');
    const done = await t.h.waitFor(task.id, (x) => x.status !== 'working');
    expect(done.status).toBe('done');
    await t.h.shown(task.id);

    const state = await stateOf(task.id);
    expect(state.goalIteration).toBe(4);
    expect(state.phase).toBe('done');
    expect(state.stepResults).toHaveLength(state.plan.length);
    expect(state.collaborationHistory.map((h) => h.role)).toEqual([
      'user',
      'agent',
      'human',
      'agent',
      'human',
      'agent',
      'human',
      'agent',
      'human',
      'agent',
      'human',
    ]);
    expect(state.collaborationHistory.every((h) => !Number.isNaN(Date.parse(h.timestamp)))).toBe(true);
    // Every step reported, then a summary; no review after the plan's approval.
    const steps = said(task.id, 'Executor');
    expect(steps).toHaveLength(state.plan.length + 1);
    expect(steps[0]?.text).toContain(`Step 1/${state.plan.length}`);
    expect(steps.at(-1)?.text).toContain('Summary');
    expect(await t.h.engine.reviews(task.id)).toHaveLength(5);
  });

  it('a modified plan reflects the feedback, says what changed, and is logged', async () => {
    const task = await t.h.start('goal-plan', 'set up on-call for the API');
    const goal = await t.h.nextReview(task.id);
    await decide(goal.id, 'approve');
    const first = await t.h.nextReview(task.id, goal.id);
    await decide(first.id, 'revise', 'add a weekly hand-over meeting');
    const second = await t.h.nextReview(task.id, first.id);
    expect(second.request.round).toBe(2);
    expect(second.request.body).toContain('Apply the feedback: "add a weekly hand-over meeting"');
    expect(second.request.body).toContain('What changed');
    const state = await stateOf(task.id);
    expect(state.planChangeLog).toHaveLength(1);
    expect(state.planChangeLog[0]).toMatch(/^Round 2: .*add a weekly hand-over meeting/);
    expect(state.userPlanFeedback).toBe('add a weekly hand-over meeting');
    await decide(second.id, 'approve');
    expect((await t.h.waitFor(task.id, (x) => x.status !== 'working')).status).toBe('done');
  });

  it('rejecting the plan ends the task cleanly as rejected, with nothing executed', async () => {
    const task = await t.h.start('goal-plan', 'rewrite billing in Rust');
    const goal = await t.h.nextReview(task.id);
    await decide(goal.id, 'approve');
    const plan = await t.h.nextReview(task.id, goal.id);
    await decide(plan.id, 'reject');
    const ended = await t.h.waitFor(task.id, (x) => x.status !== 'working');
    expect(ended.status).toBe('rejected');
    expect(ended.statusReason).toBe('the plan was rejected');
    expect(said(task.id, 'Executor')).toEqual([]);
  });
});
