/**
 * The work listeners do after their ack (recording a decision, starting a task) yields to Slack
 * requests still arriving. An ack is due within 3 seconds; the work behind it is not. In a burst
 * of clicks every ack goes out first, at a bare Bolt app's speed, and then the decisions are
 * recorded, at most `size` at once. A burst is over once no request has arrived for `quietMs`;
 * under requests that never stop, work waits at most `maxWaitMs`.
 */
import { performance } from 'node:perf_hooks';
import { createLimiter } from './limiter.js';

export interface AfterAck {
  /** Call for every Slack request as it arrives (the HTTP server's `request` event). */
  arrived(): void;
  run<T>(work: () => Promise<T>): Promise<T>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createAfterAck(options: { size: number; quietMs: number; maxWaitMs: number }): AfterAck {
  const limit = createLimiter(options.size);
  let lastArrival = Number.NEGATIVE_INFINITY;

  async function quiet(): Promise<void> {
    const since = performance.now();
    for (;;) {
      const now = performance.now();
      const calmAt = lastArrival + options.quietMs;
      if (now >= calmAt || now - since >= options.maxWaitMs) return;
      await sleep(Math.min(calmAt - now, options.maxWaitMs - (now - since)));
    }
  }

  return {
    arrived: () => {
      lastArrival = performance.now();
    },
    run: (work) =>
      limit(async () => {
        await quiet();
        return work();
      }),
  };
}
