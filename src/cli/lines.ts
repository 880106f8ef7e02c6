import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/** Reads one line at a time; `undefined` at end of input. */
export interface LineSource {
  /**
   * The next line. With `signal`, the wait can be given up: an abort rejects with the signal's
   * reason, and the line that comes next is kept for the next call. `pasted`: on a terminal, the
   * lines that come with it (a paste of several lines arrives at once; nobody types two lines
   * within PASTE_MS) are part of it, joined with newlines: pasted feedback is sent whole, never
   * its first line alone with the rest dropped as typed ahead.
   */
  next(signal?: AbortSignal, o?: { pasted?: boolean }): Promise<string | undefined>;
  /**
   * Says that a question was just shown: the lines received before it are no answer to it and
   * are dropped; returns how many. On a terminal they were typed while agents worked, or are the
   * rest of a paste (a blank line in pasted feedback would otherwise answer the next review,
   * maybe a tool call, the moment it prints). Piped input is a script of answers written ahead on
   * purpose (tests, `signoff run … < answers.txt`): nothing is dropped.
   */
  asked(): Promise<number>;
  /**
   * Whether the input has ended and every line was read: nothing more will come, so no question
   * is worth asking (Ctrl-D at a review leaves the interactive prompt too).
   */
  ended(): boolean;
  close(): void;
}

/**
 * How long after a question is shown a line still counts as typed before it: what the terminal
 * had already sent, still on its way in. Nobody reads a question and answers it this fast.
 */
const IN_FLIGHT_MS = 50;
/** How long after a line the lines of the same paste may still come in. */
const PASTE_MS = 30;

/** Lines from `input`; `typedAhead: 'drop'` (a terminal) makes `asked` drop what came before. */
export function linesFrom(input: Readable, options: { typedAhead: 'drop' | 'keep' }): LineSource {
  const rl = createInterface({ input, terminal: false });
  // Lines are taken in as they come, not when asked for: what was typed while agents worked is
  // here, and known as such, by the time a question is shown.
  const received: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let ended = false;
  rl.on('line', (line) => {
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve(line);
    } else received.push(line);
  });
  rl.on('close', () => {
    ended = true;
    waiting?.(undefined);
    waiting = undefined;
  });
  const one = (signal?: AbortSignal): Promise<string | undefined> => {
    if (received.length) return Promise.resolve(received.shift());
    if (ended) return Promise.resolve(undefined);
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      waiting = resolve;
      signal?.addEventListener(
        'abort',
        () => {
          if (waiting !== resolve) return;
          waiting = undefined;
          reject(signal.reason);
        },
        { once: true },
      );
    });
  };
  return {
    next: async (signal, o) => {
      const first = await one(signal);
      if (first === undefined || !o?.pasted || options.typedAhead === 'keep') return first;
      await sleep(PASTE_MS);
      const rest = received.splice(0);
      // A paste's last line break leaves an empty line: no part of the answer.
      return rest.length ? [first, ...rest].join('\n').replace(/\n+$/, '') : first;
    },
    asked: async () => {
      if (options.typedAhead === 'keep') return 0;
      await sleep(IN_FLIGHT_MS);
      return received.splice(0).length;
    },
    ended: () => ended && !received.length,
    close: () => rl.close(),
  };
}

/**
 * Reads the answer to a question already shown (a review) or shown now (`prompt`): what was typed
 * before it is dropped first, and the person is told so (they saw it echoed and may think it
 * counted).
 */
export async function answerTo(
  lines: LineSource,
  out: { write(text: string): void },
  prompt: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const dropped = await lines.asked();
  if (dropped) {
    out.write(
      `(${dropped === 1 ? 'A line' : `${dropped} lines`} typed before this was asked ${dropped === 1 ? 'was' : 'were'} ignored.)\n`,
    );
  }
  out.write(prompt);
  return lines.next(signal, { pasted: true });
}
