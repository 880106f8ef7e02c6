/**
 * Slack's rate limits as delivery keeps them, shared through a real Postgres: bursts, slots waited
 * for in place, callers sent back one period apart, a limit per channel for posts, and a 429 that
 * holds its method for every process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/database.js';
import { DeliveryError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { createRateLimits } from '../../src/slack/shared/rate-limits.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let testDb: TestDatabase;
let db: Database;

beforeAll(async () => {
  testDb = await createTestDatabase('rate_limits');
  db = await openDatabase({ url: testDb.url, dataDir: '', logger: createLogger('silent') });
});
afterAll(async () => {
  await db?.close();
  await testDb?.drop();
});

/**
 * When the call may go, from performance.now()'s origin: when `take` returned (it waited in place)
 * or when it said to come back (it would not wait). Absolute times, so that a slow machine that
 * issues six "concurrent" queries some ms apart still shows the slots' spacing.
 */
async function taken(
  take: () => Promise<void>,
): Promise<{ waited: number; at: number } | { later: number; at: number }> {
  const t0 = performance.now();
  try {
    await take();
    const now = performance.now();
    return { waited: now - t0, at: now };
  } catch (error) {
    if (error instanceof DeliveryError && error.kind === 'limited') {
      const later = error.retryAfterMs ?? 0;
      return { later, at: performance.now() + later };
    }
    throw error;
  }
}

describe('Slack rate limits', () => {
  it('lets a burst through at once, waits in place for a slot within a second, and sends later callers back a period apart', async () => {
    // 120 a minute: a slot each 500 ms, 2 at once.
    const limits = createRateLimits(db.pool, { 'chat.update': { perMinute: 120, burst: 2 } });
    const take = () => taken(() => limits.take('chat.update'));
    const burst = [await take(), await take()];
    for (const b of burst) expect('waited' in b && b.waited < 200).toBe(true);
    // Six more at once: those whose slot is within a second wait for it in place; the rest are
    // not given a slot, but told to come back one period after the one before.
    const rest = await Promise.all(Array.from({ length: 6 }, take));
    const waited = rest.flatMap((r) => ('waited' in r ? [r.waited] : [])).sort((a, b) => a - b);
    const backs = rest.flatMap((r) => ('later' in r ? [r.later] : [])).sort((a, b) => a - b);
    // Two slots fall within the next second; on a loaded machine the queries may reach Postgres
    // a little apart, and a third caller's slot can then be within its own second.
    expect(waited.length).toBeGreaterThanOrEqual(2);
    expect(waited.length).toBeLessThanOrEqual(3);
    expect(waited[0]).toBeGreaterThan(300);
    expect(waited[1]).toBeGreaterThan(800);
    expect(backs.length).toBe(6 - waited.length);
    expect(backs.every((b) => b > 1000)).toBe(true);
    // Every caller's slot, waited for or given back, is at least a period (500 ms) after the one
    // before: the limit is kept whatever the timing.
    const slots = rest.map((r) => r.at).sort((a, b) => a - b);
    for (let i = 1; i < slots.length; i++) expect(slots[i] - slots[i - 1]).toBeGreaterThan(400);
    // A method with no published limit is never held.
    expect('waited' in (await taken(() => limits.take('auth.test')))).toBe(true);
  });

  it('counts posts per channel, and a 429 holds its method for every process sharing the database', async () => {
    const limits = { 'chat.postMessage': { perMinute: 60, burst: 1, perChannel: true } };
    const one = createRateLimits(db.pool, limits);
    const other = createRateLimits(db.pool, limits);
    await one.take('chat.postMessage', 'C1');
    // Another channel has its own limit.
    const elsewhere = await taken(() => other.take('chat.postMessage', 'C2'));
    expect('waited' in elsewhere && elsewhere.waited < 200).toBe(true);
    // Slack said wait 5 s in C3, to one process: the other waits too.
    await one.hold('chat.postMessage', 'C3', 5000);
    const held = await taken(() => other.take('chat.postMessage', 'C3'));
    expect('later' in held && held.later > 4000).toBe(true);
  });

  it('a limit counted by the minute lets its whole count through at once, then nothing until the first leaves the minute, for every process', async () => {
    const limits = { 'chat.startStream': { perMinute: 3, burst: 3, window: true } };
    const one = createRateLimits(db.pool, limits);
    const other = createRateLimits(db.pool, limits);
    const first = await Promise.all(
      [one, one, other].map((l) => taken(() => l.take('chat.startStream', undefined, 0))),
    );
    for (const f of first) expect('waited' in f && f.waited < 1_000).toBe(true);
    // The fourth, from either process, is told to come back when the first call's minute (and the
    // second's margin) is over.
    for (const l of [one, other]) {
      const fourth = await taken(() => l.take('chat.startStream', undefined, 0));
      expect('later' in fourth && fourth.later > 59_000 && fourth.later <= 61_000).toBe(true);
    }
  });

  it('callers queued on a new minute-counted key all go at once: none reads a moment behind the one ahead of it as a hold', async () => {
    // The clock was read before the row lock: a caller queued behind another saw the other's later
    // moment as a wait of a few ms, and one unwilling to wait was sent back (1 in 240 here).
    const limits = createRateLimits(db.pool, {
      'chat.startStream': { perMinute: 8, burst: 8, window: true, perChannel: true },
    });
    let sentBack = 0;
    for (let round = 0; round < 30; round++) {
      const key = `C${round}`;
      const calls = await Promise.allSettled(
        Array.from({ length: 8 }, () => limits.take('chat.startStream', key, 0)),
      );
      sentBack += calls.filter((c) => c.status === 'rejected').length;
    }
    expect(sentBack).toBe(0);
  });

  it('a 429 holds a limit counted by the minute for as long as Slack said, though its count is not spent', async () => {
    const limits = createRateLimits(db.pool, {
      'chat.stopStream': { perMinute: 20, burst: 20, window: true },
    });
    await limits.take('chat.stopStream');
    await limits.hold('chat.stopStream', undefined, 5_000);
    const held = await taken(() => limits.take('chat.stopStream', undefined, 0));
    expect('later' in held && held.later > 4_000 && held.later <= 5_000).toBe(true);
    // Nor is a caller that would wait two seconds given a slot inside the hold.
    const waited = await taken(() => limits.take('chat.stopStream', undefined, 2_000));
    expect('later' in waited).toBe(true);
  });
});
