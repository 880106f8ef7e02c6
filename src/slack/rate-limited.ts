/**
 * Listeners' Web API calls fail at once on a 429 (their client pauses nothing; see app.ts). A 429
 * means Slack did not carry the call out, so sending it again is safe, even a post: this waits out
 * a short Retry-After and sends it again. A longer wait is not made in a listener (a person's work
 * would sit behind it); the error goes to the caller.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode } from '@slack/web-api';

export async function afterRateLimit<T>(call: () => Promise<T>, maxWaitMs = 5000): Promise<T> {
  let waited = 0;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      const e = error as { code?: string; retryAfter?: number };
      const waitMs = (e.retryAfter ?? 1) * 1000;
      if (e.code !== ErrorCode.RateLimitedError || waited + waitMs > maxWaitMs) throw error;
      waited += waitMs;
      await sleep(waitMs);
    }
  }
}
