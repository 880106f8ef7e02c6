/**
 * Long runs between reviews: more steps than LangGraph's default recursion limit (25), and
 * storage that stays one checkpoint per task however long the transcript grows.
 */
import { expect, it } from 'vitest';
import { checkpointBytes } from '../../src/engine/prune.js';
import { harnessPerFile } from '../helpers/harness.js';

const t = harnessPerFile('long_runs', () => ({ yaml: 'workflows:\n  pair:\n    maxIterations: 40\n' }));

it('runs a 40-turn cycle and keeps storage linear across cycles', async () => {
  const task = await t.h.start('pair', 'write a long report');
  let review = await t.h.nextReview(task.id);
  const sizes = [await checkpointBytes(t.h.db.pool, task.id)];
  for (let cycle = 2; cycle <= 3; cycle++) {
    await t.h.engine.decide({
      reviewId: review.id,
      actor: { id: 'bob' },
      action: 'revise',
      feedback: `more detail ${cycle}`,
    });
    review = await t.h.nextReview(task.id, review.id);
    sizes.push(await checkpointBytes(t.h.db.pool, task.id));
  }
  expect((await t.h.engine.events(task.id)).filter((e) => e.event.type === 'agent_said')).toHaveLength(120);
  const rows = await t.h.db.pool.query(
    'SELECT count(*)::int AS n FROM langgraph.checkpoints WHERE thread_id = $1',
    [task.id],
  );
  expect(rows.rows[0].n).toBe(1);
  // Three times the transcript takes about three times the bytes, not nine.
  expect((sizes[2] as number) / (sizes[0] as number)).toBeLessThan(4);
});
