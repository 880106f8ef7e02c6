/**
 * At most `size` pieces of post-ack work at once. A burst of clicks is acked at Bolt's own speed
 * while their decisions queue here, instead of 200 transactions' worth of JavaScript competing
 * with the acks still to be sent.
 */
export function createLimiter(size: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await work();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}

export type Limiter = ReturnType<typeof createLimiter>;
