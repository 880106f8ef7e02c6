/**
 * At most `size` pieces of post-ack work at once. A burst of clicks is acked at Bolt's own speed
 * while their decisions queue here, instead of 200 transactions' worth of JavaScript competing
 * with the acks still to be sent.
 *
 * A piece of work that only waits (its Slack call's turn under a rate limit, up to 20 s for a
 * start's root in a busy channel) steps aside with `waitAside`: its slot goes to the next piece
 * meanwhile and is taken back before it goes on, so that eight starts queued for one channel's turn
 * never hold up a click in another channel.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface Slot {
  /** Hands the slot on while `wait` runs; takes one back before resolving. */
  aside<T>(wait: () => Promise<T>): Promise<T>;
}
const held = new AsyncLocalStorage<Slot>();

/** Runs `wait` (nothing but waiting) with the caller's slot, if it holds one, free for others. */
export const waitAside = <T>(wait: () => Promise<T>): Promise<T> => held.getStore()?.aside(wait) ?? wait();

export function createLimiter(size: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const acquire = async () => {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
  };
  const release = () => {
    running -= 1;
    waiting.shift()?.();
  };
  return async <T>(work: () => Promise<T>): Promise<T> => {
    await acquire();
    // Waits of one piece may overlap (calls sent together): the slot is handed on by the first and
    // taken back by the last, each hand-over after the one before it.
    let asides = 0;
    let turn = Promise.resolve();
    const step = (change: () => void | Promise<void>) => {
      turn = turn.then(change);
      return turn;
    };
    const slot: Slot = {
      aside: async (wait) => {
        if (asides++ === 0) await step(release);
        try {
          return await wait();
        } finally {
          if (--asides === 0) await step(acquire);
        }
      },
    };
    try {
      return await held.run(slot, work);
    } finally {
      await turn;
      release();
    }
  };
}

export type Limiter = ReturnType<typeof createLimiter>;
