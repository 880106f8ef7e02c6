/**
 * The work listeners do after their ack (recording a decision, starting a task) yields to Slack
 * requests still arriving. An ack is due within 3 seconds; the work behind it is not. In a burst
 * of clicks every ack goes out first, at a bare Bolt app's speed, and then the decisions are
 * recorded, at most `size` at once. A burst is over once no request has arrived for `quietMs`;
 * under requests that never stop, work waits at most `maxWaitMs`.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLimiter } from '../shared/limiter.js';

export interface AfterAck {
  /** Call for every Slack request as it arrives, once verified as Slack's (app.ts's middleware). */
  arrived(): void;
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Resolves once no work is waiting or running: everything acked so far has been handled. */
  idle(): Promise<void>;
}

/** Where the time comes from (a test passes its own). */
export interface AfterAckClock {
  now(): number;
  sleep(ms: number): Promise<unknown>;
}

const realTime: AfterAckClock = { now: () => performance.now(), sleep: (ms) => sleep(ms) };

export function createAfterAck(
  options: { size: number; quietMs: number; maxWaitMs: number },
  clock: AfterAckClock = realTime,
): AfterAck {
  const limit = createLimiter(options.size);
  let lastArrival = Number.NEGATIVE_INFINITY;
  let pending = 0;
  let idle: { promise: Promise<void>; resolve: () => void } | undefined;

  async function quiet(): Promise<void> {
    const since = clock.now();
    for (;;) {
      const now = clock.now();
      const calmAt = lastArrival + options.quietMs;
      if (now >= calmAt || now - since >= options.maxWaitMs) return;
      await clock.sleep(Math.min(calmAt - now, options.maxWaitMs - (now - since)));
    }
  }

  return {
    arrived: () => {
      lastArrival = clock.now();
    },
    run: async (work) => {
      pending += 1;
      try {
        return await limit(async () => {
          await quiet();
          return work();
        });
      } finally {
        pending -= 1;
        if (pending === 0) {
          idle?.resolve();
          idle = undefined;
        }
      }
    },
    idle: () => {
      if (pending === 0) return Promise.resolve();
      if (!idle) {
        let resolve = (): void => undefined;
        const promise = new Promise<void>((r) => {
          resolve = r;
        });
        idle = { promise, resolve };
      }
      return idle.promise;
    },
  };
}
