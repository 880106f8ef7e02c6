/**
 * The runtime's promises, on a real PostgreSQL: one holder per job key whoever claims, asks
 * merged (earlier wins, never a second row), an ask during a run makes one more run after it, a
 * dead holder's job taken again with nobody asking, failures retried with backoff, a standing
 * schedule kept, and an upgrade from pg-boss that loses no waiting job.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MIGRATIONS_DIR, openDatabase } from '../../src/db/database.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { createRuntime, type Runtime } from '../../src/engine/runtime/index.js';
import * as jobs from '../../src/engine/runtime/jobs.js';
import { timerKey } from '../../src/engine/timers.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/slack-thread.js';

const logger = createLogger('silent');
const anyData = z.unknown();
let testDb: TestDatabase;
let db: Awaited<ReturnType<typeof openDatabase>>;
const runtimes: Runtime[] = [];

/** A runtime as one process would have it (leases of `ttlSeconds`). */
function runtime(ttlSeconds = 2): Runtime {
  const r = createRuntime({ pool: db.pool, heartbeats: db.heartbeats, ttlSeconds, logger });
  runtimes.push(r);
  return r;
}

const row = async (key: string) =>
  (
    await db.pool.query<{ due_at: Date | null; holder: string | null; attempt: number }>(
      'SELECT due_at, holder, attempt FROM signoff.jobs WHERE key = $1',
      [key],
    )
  ).rows[0];

beforeAll(async () => {
  testDb = await createTestDatabase('runtime');
  db = await openDatabase({ url: testDb.url, dataDir: '', logger, poolSize: 30 });
});
afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.stop()));
  await db?.close();
  await testDb?.drop();
});

describe('the runtime', () => {
  it('twenty claims at once, from two processes, on one due job: exactly one gets it', async () => {
    await jobs.schedule(db.pool, { queue: 'race', key: 'race:1' });
    // A third transaction holds the row while the twenty claims arrive, so that they all find it
    // due and meet it locked: none may take it twice once it is free.
    const blocker = await db.pool.connect();
    let claims: Promise<jobs.ClaimedRow[]>[] = [];
    try {
      await blocker.query('BEGIN');
      await blocker.query("SELECT 1 FROM signoff.jobs WHERE key = 'race:1' FOR UPDATE");
      claims = Array.from({ length: 20 }, (_, i) =>
        jobs.claim(db.pool, 'race', 1, i % 2 ? 'proc-a' : 'proc-b', 5000),
      );
      await sleep(300);
    } finally {
      await blocker.query('COMMIT');
      blocker.release();
    }
    const during = (await Promise.all(claims)).flat();
    const after = await jobs.claim(db.pool, 'race', 1, 'proc-c', 5000);
    expect([...during, ...after].map((c) => c.key)).toEqual(['race:1']);
  });

  it('asks while a job runs make one more run after it, never one beside it', async () => {
    const a = runtime();
    const b = runtime();
    const runs: { start: number; end: number }[] = [];
    let first: () => void = () => undefined;
    const firstHeld = new Promise<void>((resolve) => {
      first = resolve;
    });
    const handler = async () => {
      const run = { start: Date.now(), end: 0 };
      runs.push(run);
      if (runs.length === 1) await firstHeld;
      run.end = Date.now();
      return undefined;
    };
    a.work('again', { concurrency: 2, data: anyData }, handler);
    b.work('again', { concurrency: 2, data: anyData }, handler);
    await a.schedule(db.pool, { queue: 'again', key: 'again:1' });
    a.wake('again');
    await until('the first run', async () => (runs.length ? true : undefined));
    // Five asks while it runs, from both processes.
    for (let i = 0; i < 5; i++) await (i % 2 ? a : b).schedule(db.pool, { queue: 'again', key: 'again:1' });
    a.wake('again');
    b.wake('again');
    await sleep(300);
    expect(runs).toHaveLength(1);
    first();
    await until('the second run ended', async () => (runs.length === 2 && runs[1]?.end ? true : undefined));
    expect(runs[1]?.start).toBeGreaterThanOrEqual(runs[0]?.end ?? Number.POSITIVE_INFINITY);
    await until('the job let go', async () => ((await row('again:1')) ? undefined : true));
    expect(runs).toHaveLength(2);
  });

  it('an ask moves a waiting job earlier, never later, and never makes a second one', async () => {
    const hour = new Date(Date.now() + 3600_000);
    await jobs.schedule(db.pool, { queue: 'idle', key: 'idle:1', at: hour });
    await jobs.schedule(db.pool, { queue: 'idle', key: 'idle:1', at: new Date(Date.now() + 7200_000) });
    expect((await row('idle:1'))?.due_at?.getTime()).toBe(hour.getTime());
    const soon = new Date(Date.now() + 60_000);
    await jobs.schedule(db.pool, { queue: 'idle', key: 'idle:1', at: soon });
    expect((await row('idle:1'))?.due_at?.getTime()).toBe(soon.getTime());
    const n = await db.pool.query("SELECT count(*)::int AS n FROM signoff.jobs WHERE key = 'idle:1'");
    expect(n.rows[0].n).toBe(1);
  });

  it('keep: a standing schedule is left as it is, and made when there is none', async () => {
    const day = new Date(Date.now() + 86_400_000);
    await jobs.schedule(db.pool, { queue: 'daily', key: 'daily:1', at: day });
    await jobs.schedule(db.pool, { queue: 'daily', key: 'daily:1', at: new Date(), keep: true });
    expect((await row('daily:1'))?.due_at?.getTime()).toBe(day.getTime());
    const minute = new Date(Date.now() + 60_000);
    await jobs.schedule(db.pool, { queue: 'daily', key: 'daily:2', at: minute, keep: true });
    expect((await row('daily:2'))?.due_at?.getTime()).toBe(minute.getTime());
  });

  it("a dead holder's job is taken again once its lease runs out, with nobody asking again", async () => {
    // Claimed by a process that then died: held, nothing due, its lease running out.
    await db.pool.query(
      `INSERT INTO signoff.jobs (key, queue, holder, expires_at, attempt)
       VALUES ('dead:1', 'dead', 'gone:1', now() + interval '500 milliseconds', 1)`,
    );
    const attempts: number[] = [];
    runtime().work('dead', { concurrency: 1, data: anyData }, async (claim) => {
      attempts.push(claim.attempt);
      return undefined;
    });
    await until('the job ran again', async () => (attempts.length ? true : undefined), 5000);
    expect(attempts).toEqual([2]);
  });

  it('a job whose holder lost its lease (its heartbeat came late, nobody took it) runs again, not finished', async () => {
    const runs: boolean[] = [];
    runtime(1).work('late', { concurrency: 1, data: anyData }, async (claim) => {
      if (runs.length === 0) {
        // The process stalls past its lease: no timer, no heartbeat runs meanwhile.
        const until = Date.now() + 1100;
        while (Date.now() < until) {
          // stalled
        }
      }
      runs.push(claim.lease.held());
      return undefined;
    });
    await jobs.schedule(db.pool, { queue: 'late', key: 'late:1' });
    await until('run again', async () => (runs.length === 2 ? true : undefined), 5000);
    expect(runs).toEqual([false, true]);
    await until('the job let go', async () => ((await row('late:1')) ? undefined : true));
  });

  it('a job that throws is tried again with backoff, its attempts counted; done, it is gone', async () => {
    const tries: { attempt: number; at: number }[] = [];
    runtime().work('flaky', { concurrency: 1, data: anyData }, async (claim) => {
      tries.push({ attempt: claim.attempt, at: Date.now() });
      if (tries.length === 1) throw new Error('the first try fails');
      return undefined;
    });
    await jobs.schedule(db.pool, { queue: 'flaky', key: 'flaky:1' });
    await until('tried twice', async () => (tries.length === 2 ? true : undefined), 5000);
    expect(tries.map((t) => t.attempt)).toEqual([1, 2]);
    // The first backoff is a second (by the database's clock; this one may differ a little).
    expect((tries[1]?.at ?? 0) - (tries[0]?.at ?? 0)).toBeGreaterThan(800);
    await until('the job let go', async () => ((await row('flaky:1')) ? undefined : true));
  });

  it('a job whose data does not fit its shape is dropped, never run', async () => {
    let ran = 0;
    runtime().work('shaped', { concurrency: 1, data: z.object({ taskId: z.string() }) }, async () => {
      ran++;
      return undefined;
    });
    await jobs.schedule(db.pool, { queue: 'shaped', key: 'shaped:1', data: { task: 42 } });
    await until('the job dropped', async () => ((await row('shaped:1')) ? undefined : true), 5000);
    expect(ran).toBe(0);
  });

  it('runDue makes delayed jobs due by the given time, and leaves held and later ones', async () => {
    const now = Date.now();
    await jobs.schedule(db.pool, { queue: 'clock', key: 'clock:soon', at: new Date(now + 3600_000) });
    await jobs.schedule(db.pool, { queue: 'clock', key: 'clock:late', at: new Date(now + 3 * 3600_000) });
    await db.pool.query(
      `INSERT INTO signoff.jobs (key, queue, holder, expires_at, due_at)
       VALUES ('clock:held', 'clock', 'busy:1', now() + interval '1 minute', now() + interval '1 hour')`,
    );
    expect(await jobs.runDue(db.pool, 'clock', new Date(now + 2 * 3600_000))).toBe(1);
    expect((await row('clock:soon'))?.due_at?.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect((await row('clock:late'))?.due_at?.getTime()).toBe(now + 3 * 3600_000);
    expect((await row('clock:held'))?.holder).toBe('busy:1');
  });
});

describe('upgrading from pg-boss', () => {
  it('timers, runs and deliveries waiting in pg-boss 10 move over under the keys the runtime uses', async () => {
    const upgrade = await createTestDatabase('runtime_upgrade');
    const pool = new pg.Pool({ connectionString: upgrade.url });
    try {
      const all = readMigrations(MIGRATIONS_DIR);
      await migrate(
        pool,
        all.filter((m) => m.id < 23),
      );
      // pg-boss 10's job table, as far as the migration reads it.
      await pool.query(`
        CREATE SCHEMA pgboss;
        CREATE TYPE pgboss.job_state AS ENUM ('created', 'retry', 'active', 'completed', 'cancelled', 'failed');
        CREATE TABLE pgboss.job (name text, data jsonb, state pgboss.job_state, start_after timestamptz, priority int);`);
      const timer = {
        reviewId: 'r1',
        taskId: 'cli-1',
        kind: 'deadline' as const,
        n: 0,
        fireAt: new Date(Date.now() + 3600_000).toISOString(),
      };
      await pool.query(
        `INSERT INTO pgboss.job VALUES
           ('signoff-timer-cli', $1, 'created', $2, 0),
           ('signoff-advance-cli', '{"taskId":"cli-2"}', 'created', now(), 10),
           ('signoff-advance-cli', '{"taskId":"cli-3"}', 'active', now() - interval '1 minute', 0),
           ('signoff-deliver-cli', '{"taskId":"cli-2"}', 'retry', now() + interval '5 seconds', 0),
           ('signoff-advance-cli', '{"taskId":"cli-4"}', 'completed', now(), 0)`,
        [timer, timer.fireAt],
      );
      await migrate(pool, all);
      const moved = await pool.query<{ key: string; queue: string; priority: number }>(
        'SELECT key, queue, priority FROM signoff.jobs ORDER BY key',
      );
      expect(moved.rows).toEqual([
        { key: 'deliver:cli-2', queue: 'signoff-deliver-cli', priority: 0 },
        { key: 'run:cli-2', queue: 'signoff-advance-cli', priority: 10 },
        { key: 'run:cli-3', queue: 'signoff-advance-cli', priority: 0 },
        { key: timerKey(timer), queue: 'signoff-timer-cli', priority: 0 },
      ]);
      expect((await pool.query("SELECT to_regclass('pgboss.job') AS t")).rows[0].t).toBeNull();
    } finally {
      await pool.end();
      await upgrade.drop();
    }
  });
});
