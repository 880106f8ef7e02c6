/**
 * The engine: decide → the next review delivered to the surface, through the queue, the task
 * lock, the outbox and pruning; the same graph and database as the floor.
 */

import type { Config } from '../src/config/config.js';
import type { Database } from '../src/db/database.js';
import type { Logger } from '../src/logger.js';
import { openSignoff } from '../src/main.js';
import { throughput } from './stats.js';

export async function engine(
  config: Config,
  db: Database,
  logger: Logger,
  rounds: number,
  tasks: number,
  roundsPerTask: number,
  workflow = 'pair',
  lead = 0,
  /** Names this run's tasks apart from an earlier run's on the same database. */
  run = 'offline',
) {
  const waiters = new Map<string, (reviewId: string) => void>();
  const app = await openSignoff(config, {
    logger,
    database: db,
    sinks: {
      cli: async (e) => {
        if (e.event.type === 'review_requested') waiters.get(e.taskId)?.(e.event.review.id);
      },
    },
  });
  await app.engine.work('cli', config.queue.workers);
  const nextReview = (taskId: string) => new Promise<string>((resolve) => waiters.set(taskId, resolve));
  const start = async (id: string) => {
    const first = nextReview(id);
    await app.engine.start({
      id,
      workflow,
      text: 'benchmark task',
      requester: 'bench',
      surface: 'cli',
    });
    const t = { id, review: await first };
    for (let i = 0; i < lead; i++) {
      const next = nextReview(id);
      // A refusal throws (DecisionRefused), as every command's does.
      await app.engine.decide({ reviewId: t.review, actor: { id: 'bench' }, action: 'approve' });
      t.review = await next;
    }
    return t;
  };
  const decide = async (t: { id: string; review: string }, round: number) => {
    const next = nextReview(t.id);
    await app.engine.decide({
      reviewId: t.review,
      actor: { id: 'bench' },
      action: 'revise',
      feedback: `round ${round}`,
    });
    t.review = await next;
  };

  const latency: number[] = [];
  let task = { id: '', review: '' };
  for (let i = 0; i < rounds; i++) {
    // A fresh task every 20 rounds keeps the history about the size a real review round has.
    if (i % 20 === 0) task = await start(`cli-${workflow}-${run}-latency-${i}`);
    const t0 = performance.now();
    await decide(task, i);
    latency.push(performance.now() - t0);
  }
  const all = await Promise.all(
    Array.from({ length: tasks }, (_, i) => start(`cli-${workflow}-${run}-load-${i}`)),
  );
  const perSecond = await throughput(tasks, roundsPerTask, (i, round) =>
    decide(all[i] as { id: string; review: string }, round),
  );
  await app.close();
  return { latency, perSecond };
}
