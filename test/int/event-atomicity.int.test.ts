/**
 * A change and its event commit together, also when the caller hands the pool (no transaction of
 * its own): events are built in TS from the row a change returned and recorded by a second
 * statement, so `atomically` must wrap both. Proved by making the outbox refuse every insert:
 * the change must be gone with it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { reviewsOf } from '../../src/engine/review-rows.js';
import { decideReview } from '../../src/engine/review-updates.js';
import { getTask, setStatus } from '../../src/engine/task-rows.js';
import { harnessPerFile } from '../helpers/harness.js';

const t = harnessPerFile('event_atomicity', () => ({ yaml: 'workflows:\n  pair:\n    maxIterations: 1\n' }));

const refuseEvents = () =>
  t.h.db.pool.query(`
    CREATE FUNCTION signoff.test_refuse_events() RETURNS trigger LANGUAGE plpgsql
      AS $$ BEGIN RAISE EXCEPTION 'the outbox refuses events (test)'; END $$;
    CREATE TRIGGER test_refuse_events BEFORE INSERT ON signoff.events
      FOR EACH ROW EXECUTE FUNCTION signoff.test_refuse_events();`);

afterEach(async () => {
  await t.h.db.pool.query(`
    DROP TRIGGER IF EXISTS test_refuse_events ON signoff.events;
    DROP FUNCTION IF EXISTS signoff.test_refuse_events();`);
});

describe('a change and its event are one', () => {
  it('a status set through the pool is undone when its event cannot be recorded', async () => {
    const task = await t.h.start('pair', 'name the launch');
    await t.h.nextReview(task.id);
    await refuseEvents();
    await expect(setStatus(t.h.db.pool, task.id, 'failed', 'for the test')).rejects.toThrow(/outbox refuses/);
    const after = await getTask(t.h.db.pool, task.id);
    expect(after?.status).toBe('waiting');
    expect(after?.statusReason).toBeNull();
  });

  it('a decision recorded through the pool is undone, audit entry and reopened task included, when its event cannot be recorded', async () => {
    const task = await t.h.start('pair', 'name the codename');
    const review = await t.h.nextReview(task.id);
    await refuseEvents();
    await expect(
      decideReview(t.h.db.pool, review.id, {
        action: 'approve',
        values: {},
        by: 'U0BOB',
        at: new Date().toISOString(),
      }),
    ).rejects.toThrow(/outbox refuses/);
    expect((await reviewsOf(t.h.db.pool, task.id)).map((r) => r.status)).toEqual(['pending']);
    expect((await getTask(t.h.db.pool, task.id))?.status).toBe('waiting');
    const audited = await t.h.db.pool.query('SELECT 1 FROM signoff.audit WHERE review_id = $1', [review.id]);
    expect(audited.rowCount).toBe(0);
  });
});
