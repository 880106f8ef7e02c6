/** Time that moves only when told: after-ack.ts's clock in tests (no sleeps, nothing to flake). */

const flush = () => new Promise((r) => setImmediate(r));

/**
 * Sleepers wake in order as time passes them; `sleeping()` says how many still wait. A sleep given
 * a signal stops waiting (rejects, as node's timers do) once it aborts.
 */
export function virtualClock() {
  let now = 0;
  const sleepers: { at: number; wake: () => void }[] = [];
  return {
    now: () => now,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((wake, fail) => {
        if (signal?.aborted) return fail(signal.reason);
        const sleeper = { at: now + ms, wake };
        sleepers.push(sleeper);
        signal?.addEventListener(
          'abort',
          () => {
            const at = sleepers.indexOf(sleeper);
            if (at >= 0) sleepers.splice(at, 1);
            fail(signal.reason);
          },
          { once: true },
        );
      }),
    sleeping: () => sleepers.length,
    async advance(ms: number) {
      await flush(); // work already under way registers its sleeps first
      const end = now + ms;
      for (;;) {
        sleepers.sort((a, b) => a.at - b.at);
        const next = sleepers[0];
        if (!next || next.at > end) break;
        sleepers.shift();
        now = next.at;
        next.wake();
        await flush();
      }
      now = end;
      await flush();
    },
  };
}
