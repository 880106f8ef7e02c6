/**
 * What an operator reads while the database is down. Every loop that polls it (each job queue twice
 * a second, delivery's sweep, the abort listener, a web process's sweeps) says its failure as any
 * failure is said, and that used to be some 370 warnings a minute, each with a stack, all saying one
 * thing. The logger made here says it once: a warning or error whose error only says the database
 * cannot be reached (`isConnectionError`) begins an outage with one line, without a stack; the ones
 * after it are counted by what failed and summed up once a minute; the first connection made again
 * ends it with one line. Every other line, a genuine bug's with its stack, goes out as it was.
 *
 * A logger rather than a call in each loop: the loops live in the engine, the Slack surface and the
 * API, and one that forgot the call would be the flood again.
 */
import type pg from 'pg';
import type pino from 'pino';
import type { Logger } from '../logger.js';
import { isConnectionError } from './queryable.js';

/** How often an outage that goes on is summed up: at most one line a minute while it lasts. */
export const OUTAGE_SUMMARY_MS = 60_000;

interface Outage {
  since: number;
  /** When the last line about it was written: the summary waits a minute from it. */
  said: number;
  /** Failures since that line, by the message of the line each would have been. */
  failures: Map<string, number>;
  code?: string;
}

/** The code and words of the first link in an error's cause chain that has a code (the socket's, Postgres's). */
function reasonOf(error: unknown): { code?: string; words: string } {
  let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    if (typeof e.code === 'string') {
      // Node's AggregateError (every address of a name refused) has a code and no message.
      const words = typeof e.message === 'string' && e.message ? e.message : e.code;
      return { code: e.code, words };
    }
    e = e.cause === e ? undefined : (e.cause as typeof e);
  }
  return { words: error instanceof Error ? error.message : String(error) };
}

/** The error a pino call carries: `(err, msg)`, or `({ err | error, … }, msg)`. */
function errorOf(args: unknown[]): unknown {
  const [first] = args;
  if (first instanceof Error) return first;
  if (first && typeof first === 'object') {
    const fields = first as { err?: unknown; error?: unknown };
    return fields.err ?? fields.error;
  }
  return undefined;
}

const sum = (failures: Map<string, number>) => [...failures.values()].reduce((a, b) => a + b, 0);

/**
 * `logger`, and every child of it, with the failures that only say the database at `pools` (the
 * first names where it is) cannot be reached condensed as above. `now` is the time the lines count
 * by (tests move it).
 */
export function condenseOutages(logger: Logger, pools: pg.Pool[], now: () => number = Date.now): Logger {
  const [pool] = pools;
  let outage: Outage | undefined;
  const seconds = (since: number) => Math.round((now() - since) / 1000);

  // Listened for only during an outage: a connection made means the server answers again.
  const answered = () => {
    const o = outage;
    if (!o) return;
    outage = undefined;
    for (const p of pools) p.off('connect', answered);
    const failures = sum(o.failures);
    // At warn like the line that began it: a log kept to warnings still shows the outage ended.
    logger.warn(
      { downSeconds: seconds(o.since), failures: Object.fromEntries(o.failures) },
      `database answers again after ${seconds(o.since)} s${failures ? ` (${failures} more failures since the last line)` : ''}`,
    );
  };

  function failed(what: string, error: unknown): void {
    const reason = reasonOf(error);
    if (!outage) {
      outage = { since: now(), said: now(), failures: new Map(), code: reason.code };
      for (const p of pools) p.on('connect', answered);
      logger.warn(
        { code: reason.code, failed: what },
        `database unavailable: ${what} (${reason.words}); retrying until it answers, further failures summed up once a minute`,
      );
      return;
    }
    outage.failures.set(what, (outage.failures.get(what) ?? 0) + 1);
    outage.code = reason.code ?? outage.code;
    if (now() - outage.said < OUTAGE_SUMMARY_MS) return;
    logger.warn(
      {
        code: outage.code,
        downSeconds: seconds(outage.since),
        failures: Object.fromEntries(outage.failures),
      },
      `database still unavailable after ${seconds(outage.since)} s: ${sum(outage.failures)} failures in the last ${seconds(outage.said)} s (${outage.code ?? 'no code'})`,
    );
    outage.said = now();
    outage.failures.clear();
  }

  /** Whether a warn or error call is one of the outage's (counted, not written). */
  const condensed = (args: unknown[]): boolean => {
    const error = errorOf(args);
    if (error === undefined || !pool || !isConnectionError(error, pool)) return false;
    failed(typeof args[1] === 'string' ? args[1] : 'a database call', error);
    return true;
  };

  const wrap = (target: Logger): Logger =>
    new Proxy(target, {
      get(t, prop) {
        if (prop === 'warn' || prop === 'error') {
          const write = t[prop].bind(t) as (...args: unknown[]) => void;
          return (...args: unknown[]) => {
            if (!condensed(args)) write(...args);
          };
        }
        if (prop === 'child')
          return (bindings: pino.Bindings, options?: pino.ChildLoggerOptions) =>
            wrap(t.child(bindings, options));
        const value: unknown = Reflect.get(t, prop, t);
        return typeof value === 'function' ? value.bind(t) : value;
      },
      set: (t, prop, value) => Reflect.set(t, prop, value, t),
    });
  return wrap(logger);
}
