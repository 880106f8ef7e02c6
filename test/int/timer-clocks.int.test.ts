/**
 * A worker whose clock runs behind the database's: the runtime (on the database's time) runs a
 * timer the worker's clock calls early. It must fire then, once, not be sent back again and
 * again until the worker's clock catches up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { type Harness, openHarness } from '../helpers/harness.js';

// A deadline two seconds after the review opens, by the database's clock (and an hour and two
// seconds by the worker's); no reminder.
const YAML = `workflows:
  pair:
    maxIterations: 1
    checkpoints:
      review:
        timeout: 3602s
        onTimeout: approve
        reminders: []
`;
const HOUR = 3600_000;
/** The worker's clock: an hour behind the database's (and this host's). */
const behind = { now: () => new Date(Date.now() - HOUR) };

let db: TestDatabase;
let h: Harness;

beforeAll(async () => {
  db = await createTestDatabase('timer_clocks');
  h = await openHarness({ url: db.url, yaml: YAML, clock: behind });
  // Every claim of a job, as the runtime makes it, recorded by the database itself.
  await h.db.pool.query(`
    CREATE TABLE public.claims (key text, at timestamptz);
    CREATE FUNCTION public.record_claim() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO public.claims VALUES (NEW.key, now());
      RETURN NEW;
    END $$;
    CREATE TRIGGER record_claim AFTER INSERT OR UPDATE OF holder ON signoff.jobs
      FOR EACH ROW WHEN (NEW.holder IS NOT NULL) EXECUTE FUNCTION public.record_claim();`);
});
afterAll(async () => {
  await h?.close();
  await db?.drop();
});

describe('a worker whose clock is behind the database', () => {
  it('fires a timer when the database says it is due, in one run of its job', async () => {
    const task = await h.start('pair', 'file the quarterly report');
    const review = await h.nextReview(task.id);
    const dueAt = Date.parse(review.dueAt ?? '');
    expect(dueAt).toBeGreaterThan(Date.now()); // not yet due, by the database either
    const done = await h.waitFor(task.id, (t) => t.status === 'done', 15_000);
    expect(done.status).toBe('done');
    const [decided] = await h.engine.reviews(task.id, 'decided');
    expect(decided?.decision).toMatchObject({ action: 'approve', by: 'signoff' });
    const runs = await h.db.pool.query<{ at: Date }>('SELECT at FROM public.claims WHERE key LIKE $1', [
      `timer:${review.id}:%`,
    ]);
    // One run, not one a second (or a busy loop) for the hour the worker's clock is behind.
    expect(runs.rows).toHaveLength(1);
    // And not before its time, by the database's clock.
    expect(runs.rows[0]?.at.getTime()).toBeGreaterThanOrEqual(dueAt);
  });
});
