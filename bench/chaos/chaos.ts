/**
 * The chaos checker's core, callable from the CLI (`run.ts`) and from a test: one cluster for
 * all runs; each run drives a random scenario, waits for quiet and checks the invariants on its
 * own tasks.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AskClient, checkAsks } from './asks.js';
import { Cluster } from './cluster.js';
import { SlackDriver } from './driver.js';
import { checkRun, installCheckpointLog, type Violation } from './invariants.js';
import { Random } from './random.js';
import {
  approveWaiting,
  type RunContext,
  type RunTask,
  resolveTasks,
  runScenario,
  type StreamTally,
} from './scenario.js';

export interface ChaosOptions {
  runs: number;
  seed: number;
  /** The first run's number (to replay run k of a seed alone: `from: k, runs: 1`). */
  from?: number;
  /** An existing Postgres server's database; by default an embedded one of its own. */
  databaseUrl?: string;
  /** Called with a line per run (and a few about the cluster). */
  log?: (line: string) => void;
  /** Keeps the logs and data folder (its path is in `dir`). */
  keep?: boolean;
  /** How long a run may take to become quiet before it counts as stuck. */
  quietTimeoutMs?: number;
}

export interface RunViolation extends Violation {
  run: number;
}

export interface ChaosFigures {
  seed: number;
  runs: number;
  tasks: number;
  /** Of them, reviews asked through the HTTP API. */
  asks: number;
  faults: Record<string, number>;
  actions: Record<string, number>;
  violations: RunViolation[];
  /** Requests the web process did not answer (it was down): lost as Slack's would be. */
  unanswered: number;
  /** Events Slack refused for good (each replaced by a fallback), and tasks by how they ended. */
  refusedEvents: number;
  ends: Record<string, number>;
  /** Commands whose task never showed its root message (the web process died first). */
  notStarted: number;
  /** Kills that landed while words streamed, and how streamed messages ended (scenario.ts). */
  streams: StreamTally;
  /** Standing rules by status, and the reviews they approved, once the last run is quiet. */
  rules: { proposed: number; signedOff: number; revoked: number; refused: number; approved: number };
  wallMs: number;
  dir: string;
}

/** No task of the run working, none of its events waiting to go out, every process up, twice in a row. */
async function quiet(ctx: RunContext, tasks: RunTask[], timeoutMs: number): Promise<string | undefined> {
  const { cluster } = ctx;
  const deadline = Date.now() + timeoutMs;
  let calm = 0;
  let last = '';
  while (Date.now() < deadline) {
    await sleep(300);
    if (!(await cluster.whole())) {
      calm = 0;
      last = 'a process or Postgres is down';
      continue;
    }
    // A root message posted late (Slack failing at the time) names its task now.
    await resolveTasks(ctx, tasks);
    const ids = tasks.flatMap((t) => (t.taskId ? [t.taskId] : []));
    const row = await cluster.pool
      .query<{ working: string[]; undelivered: number; unstarted: number }>(
        `SELECT coalesce((SELECT array_agg(id) FROM signoff.tasks WHERE id = ANY($1) AND status = 'working'), '{}') AS working,
                (SELECT count(*)::int FROM signoff.events WHERE task_id = ANY($1)
                 AND delivered_at IS NULL AND failed_at IS NULL) AS undelivered,
                -- Commands a killed web process left half started (a sweep finishes them).
                (SELECT count(*)::int FROM signoff.slack_requests
                 WHERE start IS NOT NULL AND task_id IS NULL) AS unstarted`,
        [ids],
      )
      .then((r) => r.rows[0])
      .catch(() => undefined);
    if (!row || row.working.length || row.undelivered || row.unstarted) {
      calm = 0;
      last = row
        ? `working: ${row.working.join(', ') || 'none'}; undelivered events: ${row.undelivered}; unfinished starts: ${row.unstarted}`
        : 'no answer';
      continue;
    }
    if (++calm >= 3) return undefined;
  }
  return last;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * What holds a run's events back, read as the run is found not quiet (the processes log at warn
 * only, and a wait for Slack's limit or a retry's backoff logs nothing): each undelivered event's
 * attempts, next attempt and last error; its task's delivery job (holder, lease, when due); and
 * the rate limits held past now.
 */
async function whyNotQuiet(ctx: RunContext, tasks: RunTask[]): Promise<string> {
  const ids = tasks.flatMap((t) => (t.taskId ? [t.taskId] : []));
  const ms = (at: Date | null) => (at ? `${at.getTime() - Date.now()} ms` : '-');
  const lines: string[] = [];
  try {
    const events = await ctx.cluster.pool.query<{
      task_id: string;
      key: string;
      lane: string;
      attempts: number;
      next_attempt_at: Date | null;
      last_error: string | null;
    }>(
      `SELECT task_id, key, lane, attempts, next_attempt_at, last_error FROM signoff.events
       WHERE task_id = ANY($1) AND delivered_at IS NULL AND failed_at IS NULL ORDER BY task_id, id LIMIT 20`,
      [ids],
    );
    for (const e of events.rows)
      lines.push(
        `    event ${e.task_id} ${e.key} (${e.lane}): attempts ${e.attempts}, next in ${ms(e.next_attempt_at)}, last error ${e.last_error ?? '-'}`,
      );
    const jobs = await ctx.cluster.pool.query<{
      key: string;
      holder: string | null;
      expires_at: Date | null;
      due_at: Date | null;
      attempt: number;
    }>('SELECT key, holder, expires_at, due_at, attempt FROM signoff.jobs WHERE key = ANY($1)', [
      ids.map((id) => `deliver:${id}`),
    ]);
    for (const j of jobs.rows)
      lines.push(
        `    job ${j.key}: holder ${j.holder ?? '-'}, lease ends in ${ms(j.expires_at)}, due in ${ms(j.due_at)}, attempt ${j.attempt}`,
      );
    const held = await ctx.cluster.pool.query<{ key: string; tat: Date; queue_at: Date | null }>(
      'SELECT key, tat, queue_at FROM signoff.rate_limits WHERE tat > now() OR queue_at > now()',
    );
    for (const r of held.rows)
      lines.push(`    limit ${r.key}: free in ${ms(r.tat)}, queue ends in ${ms(r.queue_at)}`);
  } catch (error) {
    lines.push(`    (not read: ${(error as Error).message})`);
  }
  return lines.length ? `\n${lines.join('\n')}` : '';
}

export async function runChaos(options: ChaosOptions): Promise<ChaosFigures> {
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const master = new Random(options.seed);
  const cluster = new Cluster({ databaseUrl: options.databaseUrl, random: master.next });
  const figures: ChaosFigures = {
    seed: options.seed,
    runs: 0,
    tasks: 0,
    asks: 0,
    faults: {},
    actions: {},
    violations: [],
    unanswered: 0,
    refusedEvents: 0,
    rules: { proposed: 0, signedOff: 0, revoked: 0, refused: 0, approved: 0 },
    ends: {},
    notStarted: 0,
    streams: { workerKills: 0, killsMidStream: 0, noted: 0, shownSaved: 0 },
    wallMs: 0,
    dir: cluster.dir,
  };
  try {
    await cluster.start();
    await installCheckpointLog(cluster.pool);
    log(`cluster up in ${Date.now() - started} ms (logs in ${cluster.dir}/logs)`);
    const driver = new SlackDriver(cluster.webUrl, cluster.control);
    const asks = new AskClient(cluster.webUrl);
    const nonce = randomUUID().slice(0, 6);
    const from = options.from ?? 0;
    for (let run = from; run < from + options.runs; run++) {
      const t0 = Date.now();
      const faults: Record<string, number> = {};
      const ctx: RunContext = {
        cluster,
        driver,
        asks,
        rng: Random.forRun(options.seed, run),
        run,
        nonce,
        faults,
        actions: figures.actions,
        streams: figures.streams,
      };
      const incidentsBefore = cluster.incidents.length;
      const tasks: RunTask[] = [];
      let t1 = Date.now();
      let t2 = t1;
      const violations: Violation[] = [];
      /** Slack failures the run's faults queued that no call met before the heal forgot them. */
      let unmet = 0;
      try {
        tasks.push(...(await runScenario(ctx)));
        t1 = Date.now();
        // The faults end: refusals lifted, model faults forgotten, every process back.
        unmet = Number((await cluster.post('/heal', {})).forgotten ?? 0);
        cluster.model.clearFaults();
        await cluster.heal();
        // Every ask the agent made has had its answer (the API is back).
        await Promise.all(tasks.map((t) => t.asking));
        t2 = Date.now();
        const timeout = options.quietTimeoutMs ?? 120_000;
        let stuck = await quiet(ctx, tasks, timeout);
        if (!stuck && ctx.rng.chance(0.6)) {
          await approveWaiting(ctx, tasks);
          stuck = await quiet(ctx, tasks, timeout);
        }
        await resolveTasks(ctx, tasks);
        if (stuck) violations.push({ kind: 'not_quiet', detail: stuck + (await whyNotQuiet(ctx, tasks)) });
        violations.push(
          ...(await checkRun(
            cluster.pool,
            driver,
            tasks,
            cluster.incidents.slice(incidentsBefore),
            figures.streams,
          )),
          ...(await checkAsks(
            cluster.pool,
            asks,
            tasks.filter((t) => t.workflow === 'ask'),
          )),
        );
      } catch (error) {
        // The checker itself could not go on with this run (the cluster did not come back, say):
        // counted, and the next run starts from a whole cluster again.
        violations.push({ kind: 'checker_error', detail: (error as Error).message });
        await cluster.heal().catch(() => undefined);
      }
      for (const v of violations) figures.violations.push({ ...v, run });
      for (const [k, n] of Object.entries(faults)) figures.faults[k] = (figures.faults[k] ?? 0) + n;
      figures.runs++;
      figures.tasks += tasks.length;
      figures.asks += tasks.filter((t) => t.workflow === 'ask').length;
      figures.notStarted += tasks.filter((t) => !t.taskId).length;
      const ids = tasks.flatMap((t) => (t.taskId ? [t.taskId] : []));
      const ends = await cluster.pool
        .query<{ status: string; n: number }>(
          'SELECT status, count(*)::int AS n FROM signoff.tasks WHERE id = ANY($1) GROUP BY status ORDER BY status',
          [ids],
        )
        .then((r) => r.rows)
        .catch(() => []);
      for (const e of ends) figures.ends[e.status] = (figures.ends[e.status] ?? 0) + e.n;
      const states = ends.map((e) => `${e.status} ${e.n}`).join(', ');
      figures.refusedEvents += await cluster.pool
        .query<{ n: number }>(
          'SELECT count(*)::int AS n FROM signoff.events WHERE task_id = ANY($1) AND failed_at IS NOT NULL',
          [ids],
        )
        .then((r) => r.rows[0]?.n ?? 0)
        .catch(() => 0);
      log(
        `run ${run}: ${tasks.length} tasks (${tasks.map((t) => t.workflow).join(', ')}) → ${states || 'none started'}; ` +
          `faults ${
            Object.entries(faults)
              .map(([k, n]) => `${k}×${n}`)
              .join(' ') || 'none'
          }${unmet ? ` (${unmet} Slack failures unmet, forgotten)` : ''}; ` +
          `${violations.length ? `VIOLATIONS ${violations.map((v) => `${v.kind}${v.task ? ` (${v.task})` : ''}`).join(', ')}` : 'ok'} ` +
          `[${s(Date.now() - t0)}: chaos ${s(t1 - t0)}, heal ${s(t2 - t1)}, quiet ${s(Date.now() - t2)}]`,
      );
      // Each violation's detail at once: a long run stopped early still says what it saw.
      for (const v of violations) log(`  ${v.kind}${v.task ? ` ${v.task}` : ''}: ${v.detail}`);
    }
    figures.unanswered = driver.unanswered;
    const rules = await cluster.pool
      .query<{ status: string; n: number; approved: number }>(
        'SELECT status, count(*)::int AS n, sum(applied)::int AS approved FROM signoff.allow_rules GROUP BY status',
      )
      .then((r) => r.rows)
      .catch(() => []);
    for (const r of rules) {
      figures.rules.approved += r.approved;
      if (r.status === 'active') figures.rules.signedOff += r.n;
      else if (r.status === 'proposed' || r.status === 'revoked' || r.status === 'refused')
        figures.rules[r.status] += r.n;
    }
  } finally {
    figures.wallMs = Date.now() - started;
    await cluster.stop({ keepDir: options.keep || figures.violations.length > 0 });
  }
  return figures;
}
