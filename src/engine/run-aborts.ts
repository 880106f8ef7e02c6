/**
 * The runs under way in this process, and how each is stopped: by a cancel or a redirect (heard
 * here or through the abort listener), or by the process stopping. An abort that comes while no
 * run of its task is under way here is kept for a while: a run that read its task just before the
 * change, and registers just after, is stopped as it registers (it would apply nothing anyway).
 */
import { RunStopped, STOPPING } from './run-endings.js';

/** How long an abort that found no run waits for one that read its task just before. */
const EARLY_ABORT_MS = 60_000;

/**
 * `now`: the clock an early abort's wait goes by: real time, not the engine's settable clock, for
 * it measures a race between processes.
 */
export function createRunAborts(now: () => number = Date.now) {
  const inFlight = new Map<string, { controller: AbortController; generation: number }>();
  /** Aborts that found no run: the generation below which a run of the task stops, and when. */
  const early = new Map<string, { below: number; at: number }>();
  let stopping = false;

  /** The generation below which a run of the task stops, by the aborts of the last minute. */
  const stopsBelow = (taskId: string) => {
    for (const [id, kept] of early) if (now() - kept.at > EARLY_ABORT_MS) early.delete(id);
    return early.get(taskId)?.below ?? Number.NEGATIVE_INFINITY;
  };

  return {
    /** Whether the process is stopping: no run starts any more. */
    stopping: () => stopping,
    /**
     * A run of `taskId` at `generation` starts: its controller, aborted at once if the process is
     * stopping or an abort for it came first. `done` when it ends.
     */
    register(taskId: string, generation: number): { controller: AbortController; done(): void } {
      const controller = new AbortController();
      inFlight.set(taskId, { controller, generation });
      if (stopping) controller.abort(new RunStopped(STOPPING));
      else if (generation < stopsBelow(taskId)) controller.abort(new Error('cancelled'));
      // A late end of an older run never unregisters the run that took over.
      const done = () => {
        if (inFlight.get(taskId)?.controller === controller) inFlight.delete(taskId);
      };
      return { controller, done };
    },
    /**
     * A cancel or a redirect of `taskId`: its run here stops, if it is of a generation below
     * `below`. `underWay`: only a run under way now (what the task's row says, read a moment ago,
     * is no command: a failed task may be retried the next moment); otherwise the abort is kept.
     */
    abort(taskId: string, below = Number.POSITIVE_INFINITY, underWay = false): void {
      const run = inFlight.get(taskId);
      if (run) {
        if (run.generation < below) run.controller.abort(new Error('cancelled'));
        return;
      }
      if (!underWay) early.set(taskId, { below: Math.max(below, stopsBelow(taskId)), at: now() });
    },
    running: () => [...inFlight.keys()],
    /** The process is stopping: the runs under way stop now; the tasks they were on. */
    stop(): string[] {
      stopping = true;
      for (const run of inFlight.values()) run.controller.abort(new RunStopped(STOPPING));
      return [...inFlight.keys()];
    },
  };
}
