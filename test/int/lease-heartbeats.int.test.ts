/**
 * A lease is renewed on connections of its own: with every connection of the main pool busy
 * (a burst of work), the run it guards is not stopped for nothing.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/database.js';
import { createLeases } from '../../src/engine/leases.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/slack-thread.js';

let testDb: TestDatabase;
let db: Database;

beforeAll(async () => {
  testDb = await createTestDatabase('lease_heartbeats');
  db = await openDatabase({ url: testDb.url, dataDir: '', logger: createLogger('silent'), poolSize: 2 });
});
afterAll(async () => {
  await db?.close();
  await testDb?.drop();
});

it('a lease is renewed while every connection of the main pool is taken', async () => {
  const leases = createLeases({
    pool: db.pool,
    heartbeats: db.heartbeats,
    ttlSeconds: 1,
    logger: createLogger('silent'),
  });
  const lease = await leases.acquire('run:busy-task');
  expect(lease).toBeDefined();
  const expiry = async () =>
    (
      await db.heartbeats.query<{ at: Date }>(
        "SELECT expires_at AS at FROM signoff.leases WHERE key = 'run:busy-task'",
      )
    ).rows[0]?.at.getTime() ?? 0;
  const first = await expiry();
  // The main pool's two connections are held for longer than the lease lives.
  const held = await Promise.all([db.pool.connect(), db.pool.connect()]);
  try {
    // Renewed twice past its first expiry (a lease without renewals stops at 80% of its life).
    await until('renewals', async () => ((await expiry()) > first + 1000 ? true : undefined), 5000);
    expect(lease?.signal.aborted).toBe(false);
  } finally {
    for (const client of held) client.release();
    await lease?.release();
  }
});
