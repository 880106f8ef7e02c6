/**
 * Review timers. A review with a timeout gets reminder pings (by default one at half time) and,
 * at its deadline, its checkpoint's `onTimeout`: approve or reject (a decision recorded through
 * the same exactly-once path as a click), cancel the task, or remind once more and keep waiting.
 * A timer never approves a tool call, nor content whose card could not be shown: that review
 * gets the overdue reminder, saying why, and keeps waiting for a person.
 *
 * Each timer is a job of the runtime's, due at its time and scheduled in the transaction that
 * opens the review, so it survives restarts. When it runs it does nothing unless the review is
 * still pending: a review decided before its deadline is never touched. Time is the database's
 * clock (the runtime's), or the engine's when that is later; a job run before its time waits again.
 */
import { z } from 'zod';
import type { Queryable } from '../db/queryable.js';
import type { JobSpec, Runtime } from './runtime/index.js';
import type { Clock, Review, Surface } from './types.js';

export const timerQueue = (surface: Surface) => `signoff-timer-${surface}`;

export const timerJobSchema = z.object({
  reviewId: z.string(),
  taskId: z.string(),
  kind: z.enum(['remind', 'deadline']),
  n: z.number().int().min(0),
  fireAt: z.iso.datetime(),
});
export type TimerJob = z.infer<typeof timerJobSchema>;

/** One key per timer: a timer waits at most once. */
export const timerKey = (job: TimerJob) => `timer:${job.reviewId}:${job.kind}:${job.n}`;

/** The timer as a job, due at `at` (its time, unless it runs early and waits again). */
export const timerJob = (surface: Surface, job: TimerJob, at = new Date(job.fireAt)): JobSpec => ({
  queue: timerQueue(surface),
  key: timerKey(job),
  data: job,
  at,
});

/**
 * Schedules a review's timers, its reminders then its deadline, inside the caller's transaction
 * (the one that opens the review).
 */
export async function scheduleTimers(
  runtime: Pick<Runtime, 'schedule'>,
  db: Queryable,
  surface: Surface,
  review: Pick<Review, 'id' | 'taskId' | 'dueAt' | 'settings'>,
): Promise<void> {
  const timeout = review.settings.timeoutSeconds;
  if (!review.dueAt || !timeout) return;
  const due = Date.parse(review.dueAt);
  const timer = (kind: TimerJob['kind'], n: number, beforeSeconds: number): TimerJob => ({
    reviewId: review.id,
    taskId: review.taskId,
    kind,
    n,
    fireAt: new Date(due - beforeSeconds * 1000).toISOString(),
  });
  const reminders = [...new Set(review.settings.remindersBeforeSeconds ?? [timeout / 2])]
    .filter((s) => s > 0 && s < timeout)
    .sort((a, b) => b - a)
    .map((s, i) => timer('remind', i + 1, s));
  for (const job of [...reminders, timer('deadline', 0, 0)])
    await runtime.schedule(db, timerJob(surface, job));
}

/**
 * What time it is for timers. The runtime runs a job when it is due by the database's clock,
 * which every process shares; the engine's clock counts too when it is later (a test, or an
 * operator, moved it on and released the timers). A worker whose own clock is behind the
 * database's thus never calls a job the runtime ran on time early (it would send it back, and get
 * it back, until its clock caught up).
 */
export async function timerTime(db: Queryable, clock: Clock): Promise<{ now: Date; database: Date }> {
  const database = (await db.query<{ now: Date }>('SELECT now() AS now')).rows[0]?.now ?? new Date();
  return { now: new Date(Math.max(clock.now().getTime(), database.getTime())), database };
}

/** Whether the job's time has come at `now` (timerTime's). */
export const isDue = (job: TimerJob, now: Date) => now.getTime() >= Date.parse(job.fireAt);

/** 7200 → "2h", 90 → "90s": how a timeout reads in a sentence. */
export function formatDuration(seconds: number): string {
  for (const [unit, size] of Object.entries({ d: 86400, h: 3600, m: 60 })) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${Math.round(seconds)}s`;
}
