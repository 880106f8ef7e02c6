/**
 * A run's last plan goes with how it ended. A run shorter than the plan's redraw interval writes
 * no plan of its own: its last state is written in settling's transaction, shown by the status
 * that settles it (or with a status of its own when rules send the run on at once). A settling
 * the database refuses keeps the plan before it is tried again; a run settled from saved state
 * (its run died before settling) shows what that state vouches for. The interval here is a minute, so
 * that "shorter" holds on a loaded machine too.
 */
import { describe, expect, it } from 'vitest';
import { setStatus } from '../../src/engine/task-rows.js';
import type { Task } from '../../src/engine/types.js';
import { writeFails } from '../helpers/database.js';
import { harnessPerFile } from '../helpers/harness.js';

const t = harnessPerFile('progress-quick', () => ({
  yaml: `workflows:
  steps:
    module: ./test/fixtures/steps-graph.ts
  pair:
    checkpoints:
      review:
        rules:
          - { name: robots, when: 'requester == "robot"', approve: true }
`,
  planEveryMs: 60_000,
}));

const statuses = async (taskId: string) =>
  (await t.h.engine.eventRecords(taskId))
    .map((e) => e.event)
    .filter((e): e is Extract<typeof e, { type: 'task_status' }> => e.type === 'task_status');

/** The plan's steps as [node, status, waiting]. */
const plan = (task: Task | undefined) =>
  task?.progress?.steps.map((s) => [s.node, s.status, s.waiting ?? false]);
const ASKING = [
  ['agent1', 'complete', false],
  ['agent2', 'complete', false],
  ['review', 'in_progress', true],
];

/** Leaves the task as a run that died after saving its step, before settling it; its events so far. */
async function diedBeforeSettling(task: Task, progress: Task['progress']) {
  await t.h.db.pool.query("UPDATE signoff.tasks SET status = 'working', progress = $2 WHERE id = $1", [
    task.id,
    progress && JSON.stringify(progress),
  ]);
  return (await t.h.engine.eventRecords(task.id)).length;
}

describe("a quick run's plan", () => {
  it('is written with the status that settles the run ("done" shows it): no status of its own, no step announced, every step complete', async () => {
    const task = await t.h.start('steps', 'epsilon a quick memo');
    const done = await t.h.waitFor(task.id, (x) => x.status === 'done');
    expect(done.progress?.steps.map((s) => s.status)).toEqual(['complete', 'complete', 'complete']);
    // A task starts working with no status event: "done" is the only one.
    const status = await statuses(task.id);
    expect(status.map((e) => e.status)).toEqual(['done']);
    expect(status.filter((e) => 'step' in e && e.step)).toEqual([]);
  });

  it('is shown with a status of its own when a rule approves its review and the run goes on at once', async () => {
    const { task } = await t.h.engine.start({
      workflow: 'pair',
      text: 'tidy up',
      requester: 'robot',
      surface: 'cli',
    });
    const done = await t.h.waitFor(task.id, (x) => x.status === 'done');
    expect(plan(done)).toEqual([
      ['agent1', 'complete', false],
      ['agent2', 'complete', false],
      ['review', 'complete', false],
    ]);
    // The first run stopped at the review the rule approved: its plan went out as "working".
    expect((await statuses(task.id)).map((e) => e.status)).toEqual(['working', 'done']);
  });

  it('of a run that settles while its task already waits (a branch before it asked) is stored, though no status moves to show it', async () => {
    const task = await t.h.start('pair', 'draft the memo');
    await t.h.nextReview(task.id);
    const before = await statuses(task.id);
    const waiting = await t.h.engine.getTask(task.id);
    const settled = {
      generation: waiting?.generation ?? 0,
      steps: [{ node: 'agent1', title: 'Agent 1', status: 'complete' as const }],
    };
    expect(await setStatus(t.h.db.pool, task.id, 'waiting', null, settled)).toBe(false);
    expect((await t.h.engine.getTask(task.id))?.progress).toEqual(settled);
    expect(await statuses(task.id)).toEqual(before);
  });

  it('of a run whose settling failed is kept before settling is tried again, then shown with the review it opens', async () => {
    // The review's first write is refused, as a constraint or a bug would refuse it: settling fails once.
    const trap = await writeFails(t.db.url, 'signoff.reviews', 'true', 1, 'refused by the test');
    try {
      const task = await t.h.start('pair', 'list the risks');
      await t.h.nextReview(task.id);
      expect(await trap.count()).toBe(1);
      // Settling tried again has no run's plan: what it shows is the one kept before it.
      expect(plan(await t.h.engine.getTask(task.id))).toEqual(ASKING);
      expect((await statuses(task.id)).map((e) => e.status)).toEqual(['working', 'waiting']);
    } finally {
      await trap.remove();
    }
  });

  it('of a run that died before settling it: settled from the saved state, its step that asks waits and a step still shown running is complete', async () => {
    const task = await t.h.start('pair', 'list the risks');
    await t.h.nextReview(task.id);
    const asking = await t.h.engine.getTask(task.id);
    expect(plan(asking)).toEqual(ASKING);
    // The dead run's last write was made while the second agent ran, before the review's node began.
    const progress = asking?.progress ?? null;
    const said = await diedBeforeSettling(
      task,
      progress && {
        ...progress,
        steps: progress.steps.map((s) =>
          s.node === 'agent2'
            ? { ...s, status: 'in_progress' as const }
            : s.node === 'review'
              ? { node: s.node, title: s.title, status: 'pending' as const }
              : s,
        ),
      },
    );
    await t.h.runAndSettle(task);
    const after = await t.h.engine.getTask(task.id);
    expect(after?.status).toBe('waiting');
    expect(after?.progress).toEqual(progress);
    // Nothing ran again: no agent spoke (the status shows the plan).
    const since = (await t.h.engine.eventRecords(task.id)).slice(said).map((e) => e.event.type);
    expect(since).toEqual(['task_status']);
  });

  it('of a run that died before settling the answer to its review: the step that waited is complete', async () => {
    const task = await t.h.start('pair', 'list the risks');
    const review = await t.h.nextReview(task.id);
    const asking = await t.h.engine.getTask(task.id);
    await t.h.engine.decide({ reviewId: review.id, actor: { id: 'ann' }, action: 'approve' });
    const done = await t.h.waitFor(task.id, (x) => x.status === 'done');
    expect(plan(done)?.at(-1)).toEqual(['review', 'complete', false]);
    // As if the run that took the approval had died before settling: the plan still shows it waiting.
    await diedBeforeSettling(task, asking?.progress ?? null);
    await t.h.runAndSettle(task);
    const after = await t.h.waitFor(task.id, (x) => x.status === 'done');
    expect(plan(after)?.at(-1)).toEqual(['review', 'complete', false]);
  });

  it('of a run that died before settling, when no plan of its was written: none is made up from the saved state', async () => {
    const task = await t.h.start('pair', 'list the risks');
    await t.h.nextReview(task.id);
    await diedBeforeSettling(task, null);
    await t.h.runAndSettle(task);
    const after = await t.h.engine.getTask(task.id);
    expect(after?.status).toBe('waiting');
    expect(after?.progress).toBeNull();
  });
});
