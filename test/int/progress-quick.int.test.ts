/**
 * A run shorter than the plan's redraw interval writes its plan once, as it ends: its root is not
 * redrawn twice in a moment. The interval here is a minute, so that "shorter" holds on a loaded
 * machine too.
 */
import { describe, expect, it } from 'vitest';
import { harnessPerFile } from '../helpers/harness.js';

const t = harnessPerFile('progress-quick', () => ({
  yaml: 'workflows:\n  steps:\n    module: ./test/fixtures/steps-graph.ts\n',
  planEveryMs: 60_000,
}));

describe("a quick run's plan", () => {
  it('is written once, as the run ends: one status before "done", no step announced, every step complete', async () => {
    const task = await t.h.start('steps', 'epsilon a quick memo');
    const done = await t.h.waitFor(task.id, (x) => x.status === 'done');
    expect(done.progress?.steps.map((s) => s.status)).toEqual(['complete', 'complete', 'complete']);
    const status = (await t.h.engine.eventRecords(task.id))
      .map((e) => e.event)
      .filter((e) => e.type === 'task_status');
    // A task starts working with no status event: the one before "done" is the plan's only write.
    expect(status.map((e) => (e as { status: string }).status)).toEqual(['working', 'done']);
    expect(status.filter((e) => (e as { step?: string }).step)).toEqual([]);
  });
});
