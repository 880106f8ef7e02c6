/**
 * Long runs between reviews: more steps than LangGraph's default recursion limit (25), and
 * storage that stays one checkpoint per task however long the transcript grows.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkpointBytes } from '../../src/engine/prune.js';
import { createTestDatabase } from '../helpers/database.js';
import { type Harness, openHarness } from '../helpers/harness.js';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let h: Harness;
beforeAll(async () => {
  db = await createTestDatabase('long_runs');
  h = await openHarness({ url: db.url, yaml: 'workflows:\n  pair:\n    maxIterations: 40\n' });
});
afterAll(async () => {
  await h?.close();
  await db?.drop();
});

it('runs a 40-turn cycle and keeps storage linear across cycles', async () => {
  const { task } = await h.engine.start({
    workflow: 'pair',
    text: 'write a long report',
    requester: 'ann',
    surface: 'cli',
  });
  let review = await h.nextReview(task.id);
  const sizes = [await checkpointBytes(h.db.pool, task.id)];
  for (let cycle = 2; cycle <= 3; cycle++) {
    await h.engine.decide({
      reviewId: review.id,
      actor: { id: 'bob' },
      action: 'revise',
      feedback: `more detail ${cycle}`,
    });
    review = await h.nextReview(task.id, review.id);
    sizes.push(await checkpointBytes(h.db.pool, task.id));
  }
  expect((await h.engine.events(task.id)).filter((e) => e.event.type === 'agent_said')).toHaveLength(120);
  const rows = await h.db.pool.query(
    'SELECT count(*)::int AS n FROM langgraph.checkpoints WHERE thread_id = $1',
    [task.id],
  );
  expect(rows.rows[0].n).toBe(1);
  // Three times the transcript takes about three times the bytes, not nine.
  expect((sizes[2] as number) / (sizes[0] as number)).toBeLessThan(4);
});
