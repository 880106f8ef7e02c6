/**
 * Takes a job's lease by its key, as a worker of another process would, for tests that need to
 * hold a task's run or delivery themselves (a stale holder, a lease taken away).
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { holdLease, type Lease } from '../../src/engine/runtime/lease.js';
import { createLogger } from '../../src/logger.js';

export async function claimKey(
  pool: pg.Pool,
  key: string,
  options: { ttlSeconds: number; heartbeats?: pg.Pool; queue?: string },
): Promise<(Lease & { stop(): void; release(): Promise<void> }) | undefined> {
  const holder = `test:${randomUUID().slice(0, 8)}`;
  const ttlMs = options.ttlSeconds * 1000;
  const sentAt = Date.now();
  const r = await pool.query(
    `INSERT INTO signoff.jobs (key, queue, holder, expires_at)
     VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')
     ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
     WHERE jobs.holder IS NULL OR jobs.expires_at < now()
     RETURNING 1`,
    [key, options.queue ?? 'test', holder, ttlMs],
  );
  if (!r.rowCount) return undefined;
  const lease = holdLease({
    key,
    holder,
    sentAt,
    ttlMs,
    heartbeats: options.heartbeats ?? pool,
    logger: createLogger('silent'),
  });
  return {
    ...lease,
    /** Lets go as a worker does: what was asked for meanwhile runs next (at the workers' next look). */
    release: async () => {
      lease.stop();
      await pool.query(
        'UPDATE signoff.jobs SET holder = NULL, expires_at = NULL WHERE key = $1 AND holder = $2',
        [key, holder],
      );
      await pool.query('DELETE FROM signoff.jobs WHERE key = $1 AND holder IS NULL AND due_at IS NULL', [
        key,
      ]);
    },
  };
}
