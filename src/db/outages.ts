/**
 * What an operator reads while the database is down. Every loop that polls it (each job queue twice
 * a second, delivery's sweep, the abort listener, a web process's sweeps) says its failure as any
 * failure is said, and that used to be some 370 warnings a minute, each with a stack, all saying one
 * thing. The logger made here says it once: a warning or error whose error only says the database
 * cannot be reached (`isConnectionError`) begins an outage with one line, without a stack; the ones
 * after it are counted by what failed and summed up once a minute; the database is asked
 * (`SELECT 1`) at once and every few seconds meanwhile, and the first answer ends it with one line
 * (so a single connection's failure, a DBA's `pg_terminate_backend`, is an outage of 0 s, not one
 * that never ends). Every other line, a genuine bug's with its stack, goes out as it was.
 *
 * A logger rather than a call in each loop: the loops live in the engine, the Slack surface and the
 * API, and one that forgot the call would be the flood again.
 */
import pg from 'pg';
import type pino from 'pino';
import type { Logger } from '../logger.js';
import { isConnectionError } from './queryable.js';

/** How often an outage that goes on is summed up: at most one line a minute while it lasts. */
export const OUTAGE_SUMMARY_MS = 60_000;
/** How often the database is asked whether it answers again, while it does not. */
const PROBE_EVERY_MS = 3_000;

interface Outage {
  since: number;
  /** When the last line about it was written: the summary waits a minute from it. */
  said: number;
  /** Failures since that line, by the message of the line each would have been. */
  failures: Map<string, number>;
  code?: string;
  probe: NodeJS.Timeout;
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
 * `logger`, and every child of it, with the failures that only say the database `pool` connects to
 * cannot be reached condensed as above (its other pools, on the same server, are said with it). `now` is the
 * time the lines count by (tests move it); `probeEveryMs`, how often the database is asked meanwhile.
 */
export function condenseOutages(
  logger: Logger,
  pool: pg.Pool,
  now: () => number = Date.now,
  probeEveryMs = PROBE_EVERY_MS,
): Logger {
  // One outage a database, whoever logs it: the engine's parts and Slack's (made apart, each
  // asking for this logger) share the lines, not say each their own.
  const made = condensed.get(logger)?.get(pool);
  if (made) return made;
  const wrapped = condensing(logger, pool, now, probeEveryMs);
  condensed.set(logger, (condensed.get(logger) ?? new WeakMap()).set(pool, wrapped));
  return wrapped;
}

/** The loggers made so far, by the logger and the database they condense for. */
const condensed = new WeakMap<Logger, WeakMap<pg.Pool, Logger>>();

function condensing(logger: Logger, pool: pg.Pool, now: () => number, probeEveryMs: number): Logger {
  let outage: Outage | undefined;
  let asking = false;
  const seconds = (since: number) => Math.round((now() - since) / 1000);
  // At warn, or at error where the log is kept to errors: a database that does not answer is said
  // at the level its failures were, never dropped with them.
  const say = (fields: object, line: string) =>
    logger.isLevelEnabled('warn') ? logger.warn(fields, line) : logger.error(fields, line);

  const answered = () => {
    const o = outage;
    if (!o) return;
    outage = undefined;
    clearInterval(o.probe);
    const failures = sum(o.failures);
    say(
      { downSeconds: seconds(o.since), failures: Object.fromEntries(o.failures) },
      `database answers again after ${seconds(o.since)} s${failures ? ` (${failures} more failures since the last line)` : ''}`,
    );
  };

  /**
   * Asks the database whether it answers, on a connection of its own: a session the pool already
   * holds may answer while new ones are refused (a smart shutdown), and the pool's failures are
   * its new connections'. The first answer ends the outage.
   */
  const probe = () => {
    const ended = (pool as pg.Pool & { ending?: boolean }).ending;
    if (ended && outage) clearInterval(outage.probe);
    if (ended || asking) return;
    asking = true;
    const client = new pg.Client(pool.options);
    client.on('error', () => undefined);
    client
      .connect()
      .then(() => client.query('SELECT 1'))
      .then(answered, () => undefined)
      .finally(() => {
        asking = false;
        client.end().catch(() => undefined);
      });
  };

  function failed(what: string, error: unknown): void {
    const reason = reasonOf(error);
    if (!outage) {
      outage = {
        since: now(),
        said: now(),
        failures: new Map(),
        code: reason.code,
        probe: setInterval(probe, probeEveryMs).unref(),
      };
      say(
        { code: reason.code, failed: what },
        `database unavailable: ${what} (${reason.words}); retrying until it answers, further failures summed up once a minute`,
      );
      probe();
      return;
    }
    outage.failures.set(what, (outage.failures.get(what) ?? 0) + 1);
    outage.code = reason.code ?? outage.code;
    if (now() - outage.said < OUTAGE_SUMMARY_MS) return;
    say(
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
  const isOutage = (args: unknown[]): boolean => {
    const error = errorOf(args);
    if (error === undefined || !isConnectionError(error, pool)) return false;
    failed(typeof args[1] === 'string' ? args[1] : 'a database call', error);
    return true;
  };

  const wrap = (target: Logger): Logger => {
    // Made once per logger, not per call: pino's methods are read at every line.
    const bound = new Map<PropertyKey, { value: unknown; bound: unknown }>();
    const checked =
      (prop: 'warn' | 'error') =>
      (...args: unknown[]) => {
        if (!isOutage(args)) (target[prop] as (...a: unknown[]) => void).apply(target, args);
      };
    const own = { warn: checked('warn'), error: checked('error') };
    const child = (bindings: pino.Bindings, options?: pino.ChildLoggerOptions) =>
      wrap(target.child(bindings, options));
    return new Proxy(target, {
      get(t, prop) {
        if (prop === 'warn' || prop === 'error') return own[prop];
        if (prop === 'child') return child;
        const value: unknown = Reflect.get(t, prop, t);
        if (typeof value !== 'function') return value;
        // pino swaps a level's method when the level changes: bound again then.
        const kept = bound.get(prop);
        if (kept?.value === value) return kept.bound;
        const fresh = value.bind(t);
        bound.set(prop, { value, bound: fresh });
        return fresh;
      },
      set: (t, prop, value) => Reflect.set(t, prop, value, t),
    });
  };
  return wrap(logger);
}
