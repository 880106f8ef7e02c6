/**
 * Monitoring (seed 004's interrupt analytics): Prometheus metrics, one registry per signoff.
 *
 * Two kinds. What this process does is counted as it happens: decisions by workflow, checkpoint
 * and action, and the time each took (sum these across replicas). What the system holds is read
 * from the database at each scrape: reviews pending, tasks by status, queue depth, events that
 * could not be delivered, models' tokens and cost by workflow (the same in every replica: take the max). A scrape while the database
 * is down still answers, with `signoff_database_up 0`.
 */
import type pg from 'pg';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Runtime } from './runtime/index.js';
import type { Review, Task } from './types.js';

export interface Metrics {
  /** The Prometheus text of every metric. */
  text(): Promise<string>;
  contentType: string;
  /** A review decided (by a person or a timer) in this process. */
  decided(task: Pick<Task, 'workflow' | 'surface' | 'door'>, review: Review): void;
}

/** Seconds: a minute to a week, the range a review's wait spans. */
const DECISION_BUCKETS = [60, 300, 900, 1800, 3600, 7200, 14400, 28800, 86400, 172800, 604800];

/**
 * The door a task came through, as a label: the API or MCP, else its surface's own (slack, cli:
 * a person's command).
 */
const doorOf = (task: Pick<Task, 'surface' | 'door'>) => task.door ?? task.surface;
const DOOR = 'coalesce(t.door, t.surface)';

/** How long one read of the database serves scrapes. */
const CACHE_MS = 5000;

export function createMetrics(pool: pg.Pool, runtime: Pick<Runtime, 'depth'>): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'signoff_' });
  const registers = [registry];
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge<L>({ name: `signoff_${name}`, help, labelNames, registers });

  const decisions = new Counter({
    name: 'signoff_decisions_total',
    help: 'Reviews decided in this process, by workflow, checkpoint, door, action and whether a timer decided',
    labelNames: ['workflow', 'checkpoint', 'door', 'action', 'automatic'] as const,
    registers,
  });
  const timeToDecision = new Histogram({
    name: 'signoff_time_to_decision_seconds',
    help: 'From a review opening to a person deciding it, in this process (timer decisions are counted in signoff_decisions_total only)',
    labelNames: ['workflow', 'checkpoint', 'door'] as const,
    buckets: DECISION_BUCKETS,
    registers,
  });

  const databaseUp = gauge('database_up', 'Whether the last scrape could read the database (1) or not (0)');
  const pending = gauge('reviews_pending', 'Reviews waiting for a decision now', [
    'workflow',
    'checkpoint',
    'door',
  ]);
  const tasks = gauge(
    'tasks',
    'Tasks by workflow, door and status (done, rejected, stopped, cancelled are final)',
    ['workflow', 'door', 'status'],
  );
  const queue = gauge(
    'queue_jobs',
    'Jobs by queue and state: waiting (due), delayed (due later), active (held by a worker)',
    ['queue', 'state'],
  );
  const undelivered = gauge(
    'events_undelivered',
    'Events not yet shown on their surface (waiting or retrying)',
  );
  const failed = gauge(
    'event_delivery_failures',
    'Events their surface refused for good (a fallback was shown), by event type',
    ['type'],
  );
  const tokens = gauge(
    'model_tokens',
    "Tokens the tasks' models read (input) and wrote (output), by workflow",
    ['workflow', 'direction'],
  );
  const cost = gauge(
    'model_cost_usd',
    "What the tasks' models cost at the config file's prices, by workflow",
    ['workflow'],
  );
  const fromDatabase = [pending, tasks, queue, undelivered, failed, tokens, cost];

  /** One read of what the database holds, set on the gauges (each reset: a label gone is gone). */
  async function readDatabase(): Promise<void> {
    const [p, t, q, e, u] = await Promise.all([
      pool.query<{ workflow: string; checkpoint: string; door: string; n: number }>(
        `SELECT t.workflow, r.checkpoint, ${DOOR} AS door, count(*)::int AS n FROM signoff.reviews r
         JOIN signoff.tasks t ON t.id = r.task_id WHERE r.status = 'pending' GROUP BY 1, 2, 3`,
      ),
      pool.query<{ workflow: string; door: string; status: string; n: number }>(
        `SELECT workflow, ${DOOR} AS door, status, count(*)::int AS n FROM signoff.tasks t GROUP BY 1, 2, 3`,
      ),
      runtime.depth(),
      pool.query<{ type: string; failed: boolean; n: number }>(
        `SELECT type, failed_at IS NOT NULL AS failed, count(*)::int AS n FROM signoff.events
         WHERE delivered_at IS NULL GROUP BY 1, 2`,
      ),
      pool.query<{ workflow: string; input: string; output: string; cost: number }>(
        `SELECT workflow, sum(tokens_in) AS input, sum(tokens_out) AS output, sum(cost_usd) AS cost
         FROM signoff.tasks GROUP BY 1 HAVING sum(tokens_in + tokens_out) > 0`,
      ),
    ]);
    for (const g of fromDatabase) g.reset();
    for (const r of p.rows)
      pending.set({ workflow: r.workflow, checkpoint: r.checkpoint, door: r.door }, r.n);
    for (const r of t.rows) tasks.set({ workflow: r.workflow, door: r.door, status: r.status }, r.n);
    for (const r of q) queue.set({ queue: r.queue, state: r.state }, r.jobs);
    undelivered.set(e.rows.filter((r) => !r.failed).reduce((sum, r) => sum + r.n, 0));
    for (const r of e.rows.filter((x) => x.failed)) failed.set({ type: r.type }, r.n);
    for (const r of u.rows) {
      tokens.set({ workflow: r.workflow, direction: 'input' }, Number(r.input));
      tokens.set({ workflow: r.workflow, direction: 'output' }, Number(r.output));
      cost.set({ workflow: r.workflow }, r.cost);
    }
  }

  // Scrapes within `CACHE_MS` of a read share it: however often /metrics is asked (several
  // Prometheus servers, or someone hammering the port), the database is read at most that often.
  let last: { at: number; read: Promise<void> } | undefined;
  const refresh = () => {
    const now = Date.now();
    if (!last || now - last.at >= CACHE_MS) {
      last = {
        at: now,
        read: readDatabase().then(
          () => void databaseUp.set(1),
          () => {
            // What this process counted is still worth a scrape; the gauges say nothing stale.
            for (const g of fromDatabase) g.reset();
            databaseUp.set(0);
          },
        ),
      };
    }
    return last.read;
  };

  return {
    contentType: registry.contentType,
    text: async () => {
      await refresh();
      return registry.metrics();
    },
    decided: (task, review) => {
      const d = review.decision;
      if (!d) return;
      const labels = { workflow: task.workflow, checkpoint: review.checkpoint, door: doorOf(task) };
      decisions.inc({ ...labels, action: d.action, automatic: d.automatic ? 'true' : 'false' });
      // People's pace only: a timer decides at its deadline, which says nothing of how long people take.
      if (d.automatic) return;
      // Both times are the database's: the wait as the review's own row records it.
      const seconds = (Date.parse(review.decidedAt ?? '') - Date.parse(review.createdAt)) / 1000;
      if (seconds >= 0) timeToDecision.observe(labels, seconds);
    },
  };
}
