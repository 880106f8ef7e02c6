import { describe, expect, it } from 'vitest';
import { createAfterAck } from '../../src/slack/after-ack.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('work after an ack', () => {
  it('waits while requests keep arriving, then runs', async () => {
    // quietMs is far above the gaps between arrivals, so a loaded test machine cannot fake a lull.
    const afterAck = createAfterAck({ size: 2, quietMs: 300, maxWaitMs: 5000 });
    const started: number[] = [];
    const t0 = performance.now();
    afterAck.arrived();
    const done = afterAck.run(async () => started.push(performance.now() - t0));
    // Requests every 10 ms for 100 ms: a burst that is never quiet for 300 ms.
    for (let i = 0; i < 10; i++) {
      await sleep(10);
      afterAck.arrived();
      expect(started).toEqual([]);
    }
    await done;
    expect(started[0]).toBeGreaterThanOrEqual(100 + 290);
  });

  it('runs at once when no request is arriving', async () => {
    const afterAck = createAfterAck({ size: 2, quietMs: 300, maxWaitMs: 5000 });
    const t0 = performance.now();
    await afterAck.run(async () => undefined);
    expect(performance.now() - t0).toBeLessThan(250);
  });

  it('does not wait longer than maxWaitMs under requests that never stop', async () => {
    const afterAck = createAfterAck({ size: 1, quietMs: 1000, maxWaitMs: 60 });
    const flood = setInterval(() => afterAck.arrived(), 5);
    try {
      afterAck.arrived();
      const t0 = performance.now();
      await afterAck.run(async () => undefined);
      expect(performance.now() - t0).toBeLessThan(500);
    } finally {
      clearInterval(flood);
    }
  });

  it('runs at most `size` pieces of work at once', async () => {
    const afterAck = createAfterAck({ size: 2, quietMs: 1, maxWaitMs: 100 });
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 6 }, () =>
        afterAck.run(async () => {
          running += 1;
          most = Math.max(most, running);
          await sleep(10);
          running -= 1;
        }),
      ),
    );
    expect(most).toBe(2);
  });
});
