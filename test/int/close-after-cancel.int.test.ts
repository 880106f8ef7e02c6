/**
 * A command that changes a task and ends at once (`signoff cancel`) kicks its delivery, which this
 * process does not do for the terminal (it runs no delivery workers) and so queues, through the
 * pool, for one that does. Stopping delivery waits for that kick: the pool is closed after it, so
 * the command ends without "Cannot use a pool after calling end on the pool" in the log (and
 * "Warnings were logged" on the screen).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createDelivery, type Runtime } from '../../src/engine/index.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase } from '../helpers/database.js';

const db = await createTestDatabase('close_after_kick');
afterAll(() => db.drop());

describe('stopping delivery', () => {
  it('waits for a kick still queueing its delivery, so the pool closes after it and nothing is logged at warn', async () => {
    const lines: string[] = [];
    const logger = createLogger('warn', { write: (line: string) => void lines.push(line) });
    const pool = new pg.Pool({ connectionString: db.url });
    const sent: string[] = [];
    // A runtime whose schedule takes a moment and then queries the pool.
    const runtime = {
      schedule: async (_db: unknown, job: { queue: string }) => {
        await sleep(100);
        await pool.query('SELECT 1');
        sent.push(job.queue);
      },
      wake: () => undefined,
    } as unknown as Runtime;
    const delivery = createDelivery({ pool, runtime, sinks: {}, logger });

    void delivery.kick({ id: 'cli-1', surface: 'cli' });
    await delivery.stop();
    await pool.end();
    expect(lines).toEqual([]);
    expect(sent).toEqual(['signoff-deliver-cli']);
  });
});
