/**
 * A failure that only one connection had (a DBA's `pg_terminate_backend`, while the database
 * answers everyone else) is an outage of no time: said, and ended at once by the database's
 * answer, so that the next real outage is said as new, with its own duration.
 */
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { condenseOutages } from '../../src/db/outages.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase } from '../helpers/database.js';
import { until } from '../helpers/slack-thread.js';

const db = await createTestDatabase('outage_one_connection');
const pool = new pg.Pool({ connectionString: db.url, max: 3 });
pool.on('error', () => undefined);
afterAll(async () => {
  await pool.end();
  await db.drop();
});

it("one connection killed under its query while the database answers: 'unavailable', then 'answers again after 0 s', and the next failure is a new outage", async () => {
  const lines: { level: number; msg: string }[] = [];
  const logger = condenseOutages(
    createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) }),
    pool,
    Date.now,
    100,
  );
  // Three clients in the pool, so that the others stay and no new connection is ever needed.
  await Promise.all([1, 2, 3].map(() => pool.query('SELECT pg_sleep(0.05)')));
  const killed = async () => {
    const victim = await pool.connect();
    // A client out of the pool says its loss on itself too: heard here, as signoff's holders do.
    victim.on('error', () => undefined);
    const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const pid = rows[0]?.pid;
    const failure = victim.query('SELECT pg_sleep(5)').then(
      () => undefined,
      (error: unknown) => error,
    );
    await new pg.Client({ connectionString: db.url }).connect().then(async (admin) => {
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await admin.end();
    });
    const error = await failure;
    victim.release(true);
    return error;
  };

  logger.warn({ err: await killed() }, 'could not look for jobs; looking again shortly');
  await until('the outage ended', () => (lines.length >= 2 ? lines : undefined), 5_000);
  expect(lines.map((l) => l.msg)).toEqual([
    expect.stringMatching(
      /^database unavailable: could not look for jobs; looking again shortly \(terminating connection due to administrator command\)/,
    ),
    'database answers again after 0 s',
  ]);

  logger.warn({ err: await killed() }, 'delivery sweep failed');
  await until('the second outage ended', () => (lines.length >= 4 ? lines : undefined), 5_000);
  expect(lines.slice(2).map((l) => l.msg)).toEqual([
    expect.stringMatching(/^database unavailable: delivery sweep failed/),
    'database answers again after 0 s',
  ]);
});
