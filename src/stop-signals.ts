/**
 * SIGINT and SIGTERM, as a process that stops in order hears them: the first starts the stop; the
 * same signal relayed a moment later (a wrapper passing the terminal's Ctrl-C on to a process
 * that got it already, as tsx's CLI does when its child answers late) is that one; a later one,
 * a person's second Ctrl-C, exits at once.
 */

/** Signals this close to the first are the same one, relayed: no person presses twice so fast. */
const SAME_SIGNAL_MS = 300;

/** `stop` once, with the exit code the signal says (130 for SIGINT, 143 for SIGTERM). */
export function onStopSignals(stop: (code: number, signal: NodeJS.Signals) => void): void {
  let first = 0;
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.on(signal, () => {
      if (!first) {
        first = Date.now();
        stop(code, signal);
      } else if (Date.now() - first > SAME_SIGNAL_MS) process.exit(code);
    });
  }
}
