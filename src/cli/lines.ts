import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** Reads one line at a time; `undefined` at end of input. */
export interface LineSource {
  next(): Promise<string | undefined>;
  close(): void;
}

export function linesFrom(input: Readable): LineSource {
  const rl = createInterface({ input, terminal: false });
  const iterator = rl[Symbol.asyncIterator]();
  return {
    next: async () => {
      const r = await iterator.next();
      return r.done ? undefined : r.value;
    },
    close: () => rl.close(),
  };
}
