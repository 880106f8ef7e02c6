/**
 * When a model keeps failing: the task says so (failed, with the reason) and can be retried; the
 * specialist workflow follows seed 002 (the agent says it failed and offers Retry).
 */

import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../src/db/database.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { createTestDatabase } from '../helpers/database.js';
import { harnessPerFile } from '../helpers/harness.js';
import { overloadableModel } from '../helpers/slack-service.js';

const model = overloadableModel();
const t = harnessPerFile('failures', () => ({ modelFor: model.modelFor }));

describe('model failures', () => {
  it('a pair task fails with the reason and continues from the failed step on retry', async () => {
    model.failNext(1);
    const task = await t.h.start('pair', 'write the FAQ');
    const failed = await t.h.waitFor(task.id, (t) => t.status !== 'working');
    expect(failed.status).toBe('failed');
    expect(failed.statusReason).toBe(
      'The model service failed on its side (a server error). Retry when it recovers.',
    );
    await t.h.engine.retry(task.id, { id: 'ann' });
    await t.h.nextReview(task.id);
    const said = (await t.h.engine.events(task.id)).filter((e) => e.event.type === 'agent_said');
    expect(said).toHaveLength(3);
    await expect(t.h.engine.retry(task.id, { id: 'ann' })).rejects.toThrow(
      'only a failed task can be retried',
    );
  });

  it('a failing specialist says so in the thread and offers Retry', async () => {
    const task = await t.h.start('specialist', 'audit the travel claims');
    const first = await t.h.nextReview(task.id);
    model.failNext(1);
    await t.h.engine.decide({
      reviewId: first.id,
      actor: { id: 'bob' },
      action: 'revise',
      feedback: 'include March',
    });
    const retry = await t.h.nextReview(task.id, first.id);
    expect(retry.request.kind).toBe('retry');
    expect(retry.request.labels.approve).toBe('Retry');
    const said = (await t.h.engine.events(task.id))
      .filter((e) => e.event.type === 'agent_said')
      .map((e) => (e.event as { text: string }).text);
    expect(said.at(-1)).toBe(
      'I could not finish this step. The model service failed on its side (a server error). Retry when it recovers.',
    );
    await t.h.engine.decide({ reviewId: retry.id, actor: { id: 'bob' }, action: 'approve' });
    const again = await t.h.nextReview(task.id, retry.id);
    expect(again.request.kind).toBe('review');
    expect(again.request.body).toContain('include March');
  });
});

describe('migrations', () => {
  it('two processes migrating at once apply each file once', async () => {
    const fresh = await createTestDatabase('migrate_race');
    const pools = [
      new pg.Pool({ connectionString: fresh.url }),
      new pg.Pool({ connectionString: fresh.url }),
    ];
    try {
      const applied = await Promise.all(pools.map((p) => migrate(p, readMigrations(MIGRATIONS_DIR))));
      expect(applied.flat().sort()).toEqual(
        readMigrations(MIGRATIONS_DIR)
          .map((m) => m.name)
          .sort(),
      );
      const again = await migrate(pools[0] as pg.Pool, readMigrations(MIGRATIONS_DIR));
      expect(again).toEqual([]);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
      await fresh.drop();
    }
  });
});
