/**
 * Listeners' Web API calls fail at once on a 429 (their client pauses nothing; see app.ts). A 429
 * means Slack did not carry the call out, so sending it again is safe, even a post: this waits out
 * a short Retry-After and sends it again. A longer wait is not made in a listener (a person's work
 * would sit behind it); the error goes to the caller.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode } from '@slack/web-api';
import { waitAside } from '../shared/limiter.js';

/** How long Slack said to wait, when `error` is its 429 (a call it did not carry out); else undefined. */
export function rateLimitWaitMs(error: unknown): number | undefined {
  const e = error as { code?: string; retryAfter?: number };
  if (e?.code !== ErrorCode.RateLimitedError) return undefined;
  return Math.max(1, e.retryAfter ?? 1) * 1000;
}

export async function afterRateLimit<T>(call: () => Promise<T>, maxWaitMs = 5000): Promise<T> {
  let waited = 0;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      const waitMs = rateLimitWaitMs(error);
      if (waitMs === undefined || waited + waitMs > maxWaitMs) throw error;
      waited += waitMs;
      // Only waiting: work after an ack lets another piece use its slot meanwhile.
      await waitAside(() => sleep(waitMs));
    }
  }
}
