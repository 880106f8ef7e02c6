/**
 * A working task's plan, derived from its graph and its run's stream: the graph's nodes in order,
 * each titled by the graph (node metadata) or by its name, moving pending → in progress → complete as the graph moves; a failed node is an error; a
 * cancel marks the step it cut short as stopped by whoever cancelled.
 */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/engine/types.js';
import { holdSteps } from '../fixtures/steps-graph.js';
import { harnessPerFile } from '../helpers/harness.js';

/** Resolves once `ok()` holds (checked every 10 ms, for up to 10 s). */
const until = async (ok: () => boolean) => {
  const deadline = Date.now() + 10_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('never happened');
    await new Promise((r) => setTimeout(r, 10));
  }
};

/**
 * Attempts to show a status of the task the last test watches (the first task to announce its
 * first step once `watching`), and when; the first attempt is held by the surface's limit.
 */
const watched: { taskId?: string; attempts: number[] } = { attempts: [] };
let watching = false;
const HELD_MS = 3000;

const t = harnessPerFile('progress', () => ({
  yaml: 'workflows:\n  steps:\n    module: ./test/fixtures/steps-graph.ts\n',
  // Holds the watched task's first status for 3 s, as Slack's limit on updates holds a root's.
  limit: (event) => {
    if (!watching || event.event.type !== 'task_status') return undefined;
    watched.taskId ??= (event.event as { step?: string }).step === 'Gather facts' ? event.taskId : undefined;
    if (event.taskId !== watched.taskId) return undefined;
    watched.attempts.push(Date.now());
    return watched.attempts.length === 1 ? HELD_MS : undefined;
  },
}));

const statuses = (task: Task) => task.progress?.steps.map((s) => s.status).join(' ') ?? '';

/** Waits until the task's stored plan reads `expected` (its steps' statuses, in order). */
const planReads = (taskId: string, expected: string) =>
  t.h.waitFor(taskId, (task) => statuses(task) === expected, 10_000);

describe("a task's plan", () => {
  it("goes through the graph's steps in order, pending → in progress → complete, and ends all complete", async () => {
    const steps = holdSteps('alpha');
    const task = await t.h.start('steps', 'alpha write the memo');
    await steps.started('gather_facts');
    const first = await planReads(task.id, 'in_progress pending pending');
    expect(first.progress?.steps.map((s) => s.title)).toEqual([
      'Gather facts',
      'Write draft',
      'Check the draft against the brief',
    ]);
    steps.release('gather_facts');
    await planReads(task.id, 'complete in_progress pending');
    steps.release('write_draft');
    await planReads(task.id, 'complete complete in_progress');
    steps.release('check_draft');
    const done = await t.h.waitFor(task.id, (x) => x.status === 'done');
    expect(statuses(done)).toBe('complete complete complete');
    // Each step was announced as it started, in order (the terminal reads every event; delivery
    // to a surface shows only the latest status).
    const announced = (await t.h.engine.eventRecords(task.id))
      .filter((e) => e.event.type === 'task_status')
      .map((e) => (e.event as { step?: string }).step)
      .filter(Boolean);
    expect(announced).toEqual(['Gather facts', 'Write draft', 'Check the draft against the brief']);
  });

  it('shows the step that failed as an error, the steps before it complete and those after it pending', async () => {
    const task = await t.h.start('steps', 'beta broken draft');
    const failed = await t.h.waitFor(task.id, (x) => x.status === 'failed');
    expect(statuses(failed)).toBe('complete error pending');
  });

  it('a cancel marks the step it cut short as stopped by whoever cancelled, and the plan stays', async () => {
    const steps = holdSteps('gamma');
    const task = await t.h.start('steps', 'gamma plan the launch');
    await steps.started('gather_facts');
    steps.release('gather_facts');
    await steps.started('write_draft');
    await planReads(task.id, 'complete in_progress pending');
    await t.h.engine.cancel(task.id, { id: 'ann' });
    const cancelled = await t.h.waitFor(task.id, (x) => x.status === 'cancelled');
    expect(cancelled.progress?.steps).toEqual([
      { node: 'gather_facts', title: 'Gather facts', status: 'complete' },
      { node: 'write_draft', title: 'Write draft', status: 'error', stoppedBy: 'ann' },
      { node: 'check_draft', title: 'Check the draft against the brief', status: 'pending' },
    ]);
    // The run stopped writes nothing more: its plan is the cancel's.
    await t.h.shown(task.id);
    expect((await t.h.engine.getTask(task.id))?.progress).toEqual(cancelled.progress);
  });

  it("a status that replaces one held by the surface's limit waits where that one waited, not before it and not behind the queue", async () => {
    const steps = holdSteps('delta');
    watching = true;
    const task = await t.h.start('steps', 'delta file the report');
    await steps.started('gather_facts');
    await until(() => watched.attempts.length >= 1);
    expect(watched.taskId).toBe(task.id);
    const heldAt = watched.attempts[0] ?? 0;
    // The plan moves twice while the first status waits: each move is a newer status.
    steps.release('gather_facts');
    await steps.started('write_draft');
    await planReads(task.id, 'complete in_progress pending');
    await t.h.shown(task.id);
    // Shown once, when the first one's wait was over: the newer ones took its place.
    const after = watched.attempts.slice(1);
    expect(after).toHaveLength(1);
    expect(after[0]).toBeGreaterThanOrEqual(heldAt + HELD_MS - 50);
    expect(after[0]).toBeLessThan(heldAt + HELD_MS + 2000);
    steps.releaseAll();
    await t.h.waitFor(task.id, (x) => x.status === 'done');
  });
});
