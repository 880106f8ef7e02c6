/**
 * How a run that threw ended, for the runner: its job is tried again (a lost lease or connection,
 * an interrupt id no longer pending, the process stopping), the task pauses at its budget, or the
 * step failed (the task says why in a sentence). One place, so that a run and the read of its
 * saved state are judged alike.
 */
import { isUnknownInterruptError } from '@langchain/langgraph';
import type pg from 'pg';
import { isConnectionError } from '../db/queryable.js';
import { SignoffError } from '../errors.js';
import { isCheckpointRefused } from './checkpointer.js';
import { BudgetReached } from './usage.js';

/**
 * A run cut short because its process is stopping (Ctrl-C in a terminal): not the task's failure.
 * Nothing of the step is applied; the task stays as it was, its job asks to run again at once,
 * and the next process that runs tasks takes it from its last checkpoint.
 */
export class RunStopped extends Error {
  override name = 'RunStopped';
}

export const STOPPING = 'the process is stopping';

export type RunEnding = { rethrow: unknown } | { budget: BudgetReached } | { failed: unknown };

/**
 * What `error` means. `aborted`: the reason the run's own signal was aborted with, if it was;
 * `lease`: the run's lease signal; `read`: the error is a read of the saved state's, whose
 * database failures (any Postgres error: too many connections in a failover, a statement timeout)
 * are all tried again, where a run's are only when the connection was lost. A checkpoint the fence
 * refused is tried again too (the lease is gone).
 */
export function runEnding(
  error: unknown,
  o: { pool: pg.Pool; lease: AbortSignal; aborted?: unknown; stopping: boolean; read?: true },
): RunEnding {
  if (o.lease.aborted) return { rethrow: o.lease.reason };
  if (o.aborted instanceof BudgetReached) return { budget: o.aborted };
  if (isCheckpointRefused(error))
    return {
      rethrow: new SignoffError('lease_lost', 'the run lease was lost; its checkpoint was refused', {
        cause: error,
      }),
    };
  const fromPostgres = o.read && typeof (error as { severity?: unknown } | null)?.severity === 'string';
  if (isConnectionError(error, o.pool) || fromPostgres || isUnknownInterruptError(error))
    return { rethrow: error };
  // Whatever it ended with, a step cut short by the process stopping runs again later.
  if (o.stopping) return { rethrow: new RunStopped(STOPPING, { cause: error }) };
  return { failed: error };
}
