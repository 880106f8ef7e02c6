/**
 * Leases under pressure: renewed on connections of their own while every connection of the main
 * pool is busy (the run it guards is not stopped for nothing); and a deliverer whose process froze
 * past its lease sends nothing to Slack when it wakes.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/database.js';
import { underLease } from '../../src/engine/delivery-guard.js';
import { isSignoffError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { createDeliveryClient } from '../../src/slack/outbound/delivery-client.js';
import { createRateLimits } from '../../src/slack/shared/rate-limits.js';
import { claimKey } from '../helpers/claim.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { FakeSlack } from '../helpers/fake-slack.js';
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

/** Leases of one second, renewed on the heartbeat connections. */
const shortLease = (key: string) => claimKey(db.pool, key, { ttlSeconds: 1, heartbeats: db.heartbeats });

it('a lease is renewed while every connection of the main pool is taken', async () => {
  const lease = await shortLease('run:busy-task');
  expect(lease?.holder).toBeTypeOf('string');
  const expiry = async () =>
    (
      await db.heartbeats.query<{ at: Date }>(
        "SELECT expires_at AS at FROM signoff.jobs WHERE key = 'run:busy-task'",
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

it('a deliverer frozen past its lease posts nothing when it wakes', async () => {
  const slack = new FakeSlack();
  await slack.start();
  try {
    const lease = await shortLease('deliver:frozen-task');
    if (!lease) throw new Error('no lease');
    const client = createDeliveryClient(
      'xoxb-test',
      {
        slackApiUrl: slack.url,
        timeoutMs: 5000,
        retries: { retries: 2, factor: 2, minTimeout: 50, maxTimeout: 100 },
      },
      createRateLimits(db.pool),
    );
    const post = () => client.chat.postMessage({ channel: 'C0WORK', text: 'the card' });
    await underLease(lease, post);
    // The process freezes (no timer, no heartbeat runs) for longer than the lease lives ...
    const until = Date.now() + 1200;
    while (Date.now() < until) {
      // frozen
    }
    // ... and the first thing it does on waking is the next post of its round.
    const woke = await underLease(lease, post).then(
      () => 'posted',
      (error) => (isSignoffError(error, 'lease_lost') ? 'refused' : String(error)),
    );
    expect(woke).toBe('refused');
    expect(slack.callsOf('chat.postMessage')).toHaveLength(1);
    await lease.release();
  } finally {
    await slack.stop();
  }
});
