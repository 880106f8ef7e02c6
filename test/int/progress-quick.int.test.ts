/**
 * A run's last plan goes with how it ended. A run shorter than the plan's redraw interval writes
 * no plan of its own: its last state is written in settling's transaction, shown by the status
 * that settles it, so its root is not redrawn twice in a moment. The interval here is a minute,
 * so that "shorter" holds on a loaded machine too.
 */
import { describe, expect, it } from 'vitest';
import { harnessPerFile } from '../helpers/harness.js';

const t = harnessPerFile('progress-quick', () => ({
  yaml: 'workflows:\n  steps:\n    module: ./test/fixtures/steps-graph.ts\n',
  planEveryMs: 60_000,
}));

const statusEvents = async (taskId: string) =>
  (await t.h.engine.eventRecords(taskId))
    .map((e) => e.event)
    .filter((e): e is Extract<typeof e, { type: 'task_status' }> => e.type === 'task_status');

describe("a quick run's plan", () => {
  it('is written with the status that settles the run ("done" shows it): no status of its own, no step announced, every step complete', async () => {
    const task = await t.h.start('steps', 'epsilon a quick memo');
    const done = await t.h.waitFor(task.id, (x) => x.status === 'done');
    expect(done.progress?.steps.map((s) => s.status)).toEqual(['complete', 'complete', 'complete']);
    // A task starts working with no status event: "done" is the only one.
    const status = await statusEvents(task.id);
    expect(status.map((e) => e.status)).toEqual(['done']);
    expect(status.filter((e) => 'step' in e && e.step)).toEqual([]);
  });

  it('of a run that died after saving its step, before settling it: the next run settles from the saved state; the step asking waits, a step still shown running is complete', async () => {
    const task = await t.h.start('pair', 'list the risks');
    await t.h.nextReview(task.id);
    const plan = (await t.h.engine.getTask(task.id))?.progress;
    expect(plan?.steps.map((s) => [s.node, s.status, s.waiting ?? false])).toEqual([
      ['agent1', 'complete', false],
      ['agent2', 'complete', false],
      ['review', 'in_progress', true],
    ]);
    // As the dead run left it: working, its last timed write made while the second agent and
    // the review's node ran (a node that asks shows as running until its interrupt is seen).
    const cut = plan && {
      ...plan,
      steps: plan.steps.map((s) =>
        s.node === 'agent1' ? s : { node: s.node, title: s.title, status: 'in_progress' as const },
      ),
    };
    const said = await dieBeforeSettling(task.id, cut);
    await t.h.runAndSettle(task);
    const after = await t.h.engine.getTask(task.id);
    expect(after?.status).toBe('waiting');
    expect(after?.progress).toEqual(plan);
    // Nothing ran again: the only new event is the status that shows the plan.
    const events = (await t.h.engine.eventRecords(task.id)).slice(said).map((e) => e.event.type);
    expect(events).toEqual(['task_status']);
  });

  it('of a run that died before settling, when no plan of its was written: none is made up from the saved state', async () => {
    const task = await t.h.start('pair', 'list the risks');
    await t.h.nextReview(task.id);
    await dieBeforeSettling(task.id, null);
    await t.h.runAndSettle(task);
    const after = await t.h.engine.getTask(task.id);
    expect(after?.status).toBe('waiting');
    expect(after?.progress).toBeNull();
  });
});

/** Leaves the task as a run that died after saving its step, before settling it; the events so far. */
async function dieBeforeSettling(taskId: string, progress: unknown) {
  await t.h.db.pool.query("UPDATE signoff.tasks SET status = 'working', progress = $2 WHERE id = $1", [
    taskId,
    progress === null ? null : JSON.stringify(progress),
  ]);
  return (await t.h.engine.eventRecords(taskId)).length;
}
