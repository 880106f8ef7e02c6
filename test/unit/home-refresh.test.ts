/**
 * One person's Home tab is drawn one draw at a time, the latest asked winning, and drawn again
 * after a 429's Retry-After instead of left stale, unless the service stops meanwhile. Time is
 * vitest's: the Retry-After is moved through, not slept.
 */
import type { WebClient } from '@slack/web-api';
import { ErrorCode } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createHomeRefresh, type HomeDraw } from '../../src/slack/inbound/home-refresh.js';

const client = {} as WebClient;
const ratelimited = Object.assign(new Error('ratelimited'), {
  code: ErrorCode.RateLimitedError,
  retryAfter: 2,
});

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function refresher(answers: (draw: HomeDraw) => Promise<void>, stopping?: AbortSignal) {
  const drawn: (string | undefined)[] = [];
  const home = createHomeRefresh({
    publish: async (d) => {
      drawn.push(d.after);
      await answers(d);
    },
    logger: createLogger('silent'),
    run: (work) => work(),
    stopping,
  });
  return { home, drawn };
}

describe('the Home tab after a 429', () => {
  it('is drawn again after Retry-After, at the page asked for last meanwhile, once', async () => {
    let calls = 0;
    const { home, drawn } = refresher(async () => {
      if (++calls === 1) throw ratelimited;
    });
    await home.refresh({ client, user: 'U0BOB' });
    // Asked for twice while it waits: only the latest (the page after r7) is drawn.
    await home.refresh({ client, user: 'U0BOB', after: 'r3' });
    await home.refresh({ client, user: 'U0BOB', after: 'r7' });
    expect(drawn).toEqual([undefined]);
    await vi.advanceTimersByTimeAsync(1999);
    expect(drawn).toEqual([undefined]);
    await vi.advanceTimersByTimeAsync(1);
    expect(drawn).toEqual([undefined, 'r7']);
    // Done: the next opening draws at once.
    await home.refresh({ client, user: 'U0BOB' });
    expect(drawn).toEqual([undefined, 'r7', undefined]);
  });

  it('another person’s tab is not held back by it', async () => {
    const { home, drawn } = refresher(async (d) => {
      if (d.user === 'U0BOB') throw ratelimited;
    });
    await home.refresh({ client, user: 'U0BOB' });
    await home.refresh({ client, user: 'U0CAT', after: 'cat' });
    expect(drawn).toEqual([undefined, 'cat']);
  });

  it('a failure that is not a 429 is left to the next opening', async () => {
    const { home, drawn } = refresher(async () => {
      throw new Error('invalid_blocks');
    });
    await home.refresh({ client, user: 'U0BOB' });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(drawn).toEqual([undefined]);
    await home.refresh({ client, user: 'U0BOB' });
    expect(drawn).toEqual([undefined, undefined]);
  });
});

describe('the Home tab redraws when the service stops', () => {
  it('a redraw waiting out a 429 is dropped: its timer is cleared, and nothing is drawn after', async () => {
    const service = new AbortController();
    const { home, drawn } = refresher(async () => {
      throw ratelimited;
    }, service.signal);
    await home.refresh({ client, user: 'U0BOB' });
    await home.refresh({ client, user: 'U0CAT' });
    expect(vi.getTimerCount()).toBe(2);
    service.abort();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(drawn).toEqual([undefined, undefined]);
  });

  it('a draw under way when the service stops sets no timer on its 429', async () => {
    const service = new AbortController();
    let answer = (): void => undefined;
    const { home, drawn } = refresher(
      () =>
        new Promise<void>((_, reject) => {
          answer = () => reject(ratelimited);
        }),
      service.signal,
    );
    const drawing = home.refresh({ client, user: 'U0BOB' });
    service.abort();
    answer();
    await drawing;
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(drawn).toEqual([undefined]);
  });
});
