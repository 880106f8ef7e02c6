/**
 * One randomized run: start a few tasks in random workflows and channels, then act as people
 * (approve, click twice, approve and reject at once, revise, cancel, redirect, always allow and
 * sign the rule off or revoke it, approve several at once from the Home tab) while faults hit
 * (kill -9 of a worker or the web process, a worker frozen past its lease, a Postgres restart,
 * Slack and model failures).
 * Faults run alongside the people, not between them: a kill can land mid-click.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { slackTaskId } from '../../src/slack/shared/origin.js';
import { contentHash } from '../../src/workflows/protocol/content-hash.js';
import { type ReviewRequest, reviewRequestSchema } from '../../src/workflows/protocol/requests.js';
import { type AskClient, CHAOS_API_CLIENT } from './asks.js';
import type { Cluster } from './cluster.js';
import type { SlackDriver } from './driver.js';
import type { Random } from './random.js';
import type { SlackPost } from './slack-process.js';

export const WORKFLOWS = ['pair', 'proposal', 'goal-plan', 'specialist'] as const;
export const CHANNELS = ['C0CHAOS1', 'C0CHAOS2', 'C0CHAOS3'];
const REQUESTERS = ['U0ANN', 'U0DAN'];
const REVIEWERS = ['U0BOB', 'U0CAT'];
const GOALS = ['write the release notes', 'plan the office move', 'draft a hiring rubric', 'review the API'];
const SLACK_METHODS = ['chat.postMessage', 'chat.update', 'conversations.replies', 'chat.postEphemeral'];

export const FAULT_KINDS = [
  'kill_worker',
  'kill_web',
  'pause_worker',
  'restart_postgres',
  'slack_429',
  'slack_5xx',
  'slack_refusal',
  'model_429',
  'model_5xx',
  'model_slow',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

const ACTION_KINDS = [
  'approve',
  'duplicate_approve',
  'both_approve',
  'approve_and_reject',
  'reject',
  'revise_modal',
  'revise_reply',
  'redirect',
  'cancel',
  'always_allow',
  'rule_approve',
  'rule_revoke',
  'batch_approve',
  'idle',
] as const;
type ActionKind = (typeof ACTION_KINDS)[number];

export interface RunTask {
  marker: string;
  channel: string;
  workflow: string;
  requester: string;
  /** Known once its root message is seen: the task id names the thread. */
  taskId?: string;
  rootTs?: string;
  /** A review asked through the HTTP API: asked until the API answers, then its id (every one it gave). */
  asking?: Promise<void>;
  askId?: string;
  askIds?: string[];
  /** The API answered a cancel of it with the review cancelled. */
  cancelled?: boolean;
}

/** What the checker saw of agents' streamed words, over all runs. */
export interface StreamTally {
  /** Workers killed, and of them those killed while some message's words were being written. */
  workerKills: number;
  killsMidStream: number;
  /** Streamed messages once quiet: closed with a note, and showing an agent's saved words. */
  noted: number;
  shownSaved: number;
}

export interface RunContext {
  cluster: Cluster;
  driver: SlackDriver;
  asks: AskClient;
  rng: Random;
  run: number;
  /** Distinguishes this checker's tasks from those of an earlier one on the same database. */
  nonce: string;
  faults: Record<string, number>;
  actions: Record<string, number>;
  streams: StreamTally;
}

const count = (counter: Record<string, number>, kind: string) => {
  counter[kind] = (counter[kind] ?? 0) + 1;
};

/** Finds the task ids of tasks whose root message is out. */
export async function resolveTasks(ctx: RunContext, tasks: RunTask[]): Promise<void> {
  await ctx.driver.refresh().catch(() => undefined);
  for (const t of tasks) {
    if (t.taskId) continue;
    const root = ctx.driver.rootOf(t.marker);
    if (!root) continue;
    t.rootTs = root.ts;
    t.taskId = slackTaskId({ channel: t.channel, ts: root.ts });
  }
}

interface Look {
  working: RunTask[];
  open: RunTask[];
  cards: { task: RunTask; review: string; card: SlackPost }[];
}

/** The run's tasks as the database has them now (nothing while Postgres is down). */
async function look(ctx: RunContext, tasks: RunTask[]): Promise<Look> {
  await resolveTasks(ctx, tasks);
  const known = tasks.filter((t) => t.taskId);
  const rows = await ctx.cluster.pool
    .query<{ id: string; status: string; review: string | null }>(
      `SELECT t.id, t.status, r.id AS review FROM signoff.tasks t
       LEFT JOIN signoff.reviews r ON r.task_id = t.id AND r.status = 'pending'
       WHERE t.id = ANY($1)`,
      [known.map((t) => t.taskId)],
    )
    .then((r) => r.rows)
    .catch(() => []);
  const byId = new Map(known.map((t) => [t.taskId as string, t]));
  const out: Look = { working: [], open: [], cards: [] };
  for (const row of rows) {
    const task = byId.get(row.id) as RunTask;
    if (row.status === 'working' && !out.working.includes(task)) out.working.push(task);
    if (['working', 'waiting', 'failed'].includes(row.status) && !out.open.includes(task))
      out.open.push(task);
    const card = row.review ? ctx.driver.cardOf(row.review) : undefined;
    if (row.review && card) out.cards.push({ task, review: row.review, card });
  }
  return out;
}

const has = (card: SlackPost, id: string) => card.buttons.some((b) => b.action_id === id);

/** Does one thing a person would do, if the state allows it; returns what it did. */
async function act(ctx: RunContext, kind: ActionKind, now: Look): Promise<ActionKind | undefined> {
  const { driver, rng } = ctx;
  const reviewer = rng.pick(REVIEWERS);
  const other = REVIEWERS.find((r) => r !== reviewer) as string;
  const needsCard = !['redirect', 'cancel', 'idle', 'rule_approve', 'rule_revoke', 'batch_approve'].includes(
    kind,
  );
  const target = needsCard && now.cards.length ? rng.pick(now.cards) : undefined;
  if (needsCard && !target) return undefined;
  const card = target?.card as SlackPost;
  switch (kind) {
    case 'approve':
      await driver.click(reviewer, card, 'signoff_approve');
      return kind;
    case 'duplicate_approve':
      await Promise.all([
        driver.click(reviewer, card, 'signoff_approve'),
        driver.click(reviewer, card, 'signoff_approve'),
      ]);
      return kind;
    case 'both_approve':
      // Two people at once: on a 2-approval review they reach the quorum once; elsewhere one wins.
      await Promise.all([
        driver.click(reviewer, card, 'signoff_approve'),
        driver.click(other, card, 'signoff_approve'),
      ]);
      return kind;
    case 'approve_and_reject':
      await Promise.all([
        driver.click(reviewer, card, 'signoff_approve'),
        has(card, 'signoff_reject')
          ? driver.click(other, card, 'signoff_reject')
          : driver.revise(other, card, `at the same time, ${ctx.run}`),
      ]);
      return kind;
    case 'reject':
      if (!has(card, 'signoff_reject')) return undefined;
      await driver.click(reviewer, card, 'signoff_reject');
      return kind;
    case 'revise_modal':
      if (!has(card, 'signoff_revise')) return undefined;
      await driver.revise(reviewer, card, `make it shorter (run ${ctx.run})`);
      return kind;
    case 'revise_reply':
      await driver.reply(
        reviewer,
        card.channel,
        card.thread_ts ?? card.ts,
        // Addressed to the bot: a plain reply at a review only gets its author a private question.
        `revise: add an example (run ${ctx.run})`,
      );
      return kind;
    case 'redirect': {
      // An agent's ask has no person to redirect it.
      const people = now.working.filter((t) => t.workflow !== 'ask');
      const task = people.length ? rng.pick(people) : undefined;
      if (!task?.rootTs) return undefined;
      await driver.reply(
        task.requester,
        task.channel,
        task.rootTs,
        `redirect: ${task.marker} ${rng.pick(GOALS)} instead`,
      );
      return kind;
    }
    case 'cancel': {
      const task = now.open.length ? rng.pick(now.open) : undefined;
      // The agent that asked cancels through the API.
      if (task?.workflow === 'ask') {
        if (!task.askId) return undefined;
        const view = await ctx.asks.cancel(task.askId);
        if (view?.status === 'cancelled') task.cancelled = true;
        return view ? kind : undefined;
      }
      const root = task ? driver.rootOf(task.marker) : undefined;
      if (!task || !root) return undefined;
      await driver.click(task.requester, root, 'signoff_cancel');
      return kind;
    }
    case 'always_allow':
      if (!has(card, 'signoff_always')) return undefined;
      await driver.alwaysAllow(reviewer, card, rng.pick(['task', 'workflow']));
      return kind;
    case 'rule_approve':
    case 'rule_revoke': {
      const rules = driver.ruleMessages();
      if (!rules.length) return undefined;
      const id = kind === 'rule_approve' ? 'signoff_rule_approve' : 'signoff_rule_revoke';
      await driver.ruleClick(reviewer, rng.pick(rules), id);
      return kind;
    }
    case 'batch_approve': {
      // The Home tab as drawn a moment ago: each review waiting, with the hash of what it showed.
      const picked = await ctx.cluster.pool
        .query<{ id: string; request: ReviewRequest }>(
          `SELECT id, request FROM signoff.reviews WHERE status = 'pending' AND task_id = ANY($1)`,
          [now.cards.map((c) => c.task.taskId)],
        )
        .then((r) => r.rows.map((row) => `${row.id}:${contentHash(reviewRequestSchema.parse(row.request))}`))
        .catch(() => []);
      if (picked.length < 2) return undefined;
      await sleep(rng.int(0, 400));
      await driver.batchApprove(reviewer, picked);
      return kind;
    }
    case 'idle':
      return kind;
  }
}

/** How long an aimed kill waits for words being written before it lands anyway. */
const AIM_MS = 3000;

/** Starts one fault; the promise ends when the fault is over (a killed process is restarting). */
function fault(ctx: RunContext, kind: FaultKind, now: Look): Promise<unknown> | undefined {
  const { cluster, rng } = ctx;
  switch (kind) {
    case 'kill_worker': {
      const [name, downMs] = [rng.pick(['worker-1', 'worker-2'] as const), rng.int(100, 1500)];
      // Half the kills wait a little for words being written (whichever worker writes them), so
      // that the streaming invariants meet runs that die mid-answer often, not by luck; each
      // kill is counted by whether words were being written as it landed.
      const aim = rng.chance(0.5);
      return (async () => {
        let writing = await ctx.driver.streamsWritten();
        for (const until = Date.now() + AIM_MS; aim && !writing && Date.now() < until; ) {
          await sleep(100);
          writing = await ctx.driver.streamsWritten();
        }
        ctx.streams.workerKills++;
        if (writing) ctx.streams.killsMidStream++;
        await cluster.kill(name, downMs);
      })();
    }
    case 'kill_web':
      return cluster.kill('web', rng.int(100, 1000));
    case 'pause_worker':
      // Past the lease (3 s): the other worker takes its tasks over while it is frozen.
      return cluster.pause(rng.pick(['worker-1', 'worker-2'] as const), rng.int(2000, 6000));
    case 'restart_postgres':
      return cluster.restartPostgres(rng.int(200, 1500));
    case 'slack_429':
      return cluster.post('/fail', {
        method: rng.pick(SLACK_METHODS),
        status: 429,
        retryAfter: 1,
        times: rng.int(1, 3),
      });
    case 'slack_5xx':
      return cluster.post('/fail', {
        method: rng.pick(SLACK_METHODS),
        ...rng.pick([{ status: 500 }, { status: 503 }, { status: 200, error: 'internal_error' }]),
        // Up to one more than the Web API client retries by itself: then the event's own retry.
        times: rng.int(1, 4),
      });
    case 'slack_refusal': {
      // Until the run's faults end: whatever the thread still gets meanwhile is refused (a task
      // whose agents work will post soon).
      const candidates = now.working.length ? now.working : now.open;
      const task = candidates.length ? rng.pick(candidates) : undefined;
      if (!task?.rootTs) return undefined;
      // Every message of one thread refused for good (its fallbacks let through), or its root's updates.
      return rng.chance(0.75)
        ? cluster.post('/refuse', {
            method: 'chat.postMessage',
            channel: task.channel,
            threadTs: task.rootTs,
            error: rng.pick(['invalid_blocks', 'msg_too_long', 'invalid_blocks', 'not_in_channel']),
          })
        : cluster.post('/refuse', {
            method: 'chat.update',
            channel: task.channel,
            ts: task.rootTs,
            error: 'invalid_blocks',
          });
    }
    case 'model_429':
      cluster.model.failNext({ status: 429, retryAfter: 1 }, rng.int(1, 2));
      return Promise.resolve();
    case 'model_5xx':
      // Now and then more failures than the client retries: the step fails, and says so.
      cluster.model.failNext({ status: rng.pick([500, 503] as const) }, rng.chance(0.15) ? 6 : rng.int(1, 2));
      return Promise.resolve();
    case 'model_slow':
      cluster.model.failNext({ delayMs: rng.int(1000, 4000) }, rng.int(1, 3));
      return Promise.resolve();
  }
}

const ACTION_WEIGHTS: Record<ActionKind, number> = {
  approve: 30,
  duplicate_approve: 8,
  both_approve: 8,
  approve_and_reject: 8,
  reject: 4,
  revise_modal: 8,
  revise_reply: 6,
  redirect: 6,
  cancel: 3,
  always_allow: 4,
  rule_approve: 6,
  rule_revoke: 2,
  batch_approve: 5,
  idle: 8,
};
const FAULT_WEIGHTS: Record<FaultKind, number> = {
  kill_worker: 5,
  kill_web: 3,
  pause_worker: 2,
  restart_postgres: 2,
  slack_429: 4,
  slack_5xx: 4,
  slack_refusal: 5,
  model_429: 4,
  model_5xx: 4,
  model_slow: 4,
};

/** Starts the run's tasks, then acts and injects faults for a while; returns the tasks. */
export async function runScenario(ctx: RunContext): Promise<RunTask[]> {
  const { rng, driver } = ctx;
  const tasks: RunTask[] = Array.from({ length: rng.int(2, 4) }, (_, i) => {
    // About one task in four is a review an agent asks through the HTTP API.
    const api = rng.chance(0.25);
    return {
      marker: `chaos-${ctx.nonce}-r${ctx.run}-t${i}`,
      channel: rng.pick(CHANNELS),
      workflow: api ? 'ask' : rng.pick(WORKFLOWS),
      requester: api ? `api:${CHAOS_API_CLIENT}` : rng.pick(REQUESTERS),
    };
  });
  for (const t of tasks) {
    const text = `${t.marker} ${rng.pick(GOALS)}`;
    if (t.workflow !== 'ask') {
      await driver.command(t.requester, t.channel, `${t.workflow} ${text}`);
      continue;
    }
    // Not awaited: the client asks again until the web process answers, while the faults go on.
    t.asking = ctx.asks.ask(t.channel, text, t.marker, rng.chance(0.3)).then((ids) => {
      t.askIds = ids;
      t.askId = ids[0];
    });
  }
  const running: Promise<unknown>[] = [];
  const steps = rng.int(8, 14);
  for (let step = 0; step < steps; step++) {
    await sleep(rng.int(100, 700));
    const now = await look(ctx, tasks);
    if (rng.chance(0.3)) {
      const kind = rng.weighted(FAULT_WEIGHTS);
      const started = fault(ctx, kind, now);
      if (started) {
        count(ctx.faults, kind);
        running.push(started.catch(() => undefined));
      }
      continue;
    }
    const did = await act(ctx, rng.weighted(ACTION_WEIGHTS), now);
    if (did && did !== 'idle') count(ctx.actions, did);
  }
  await Promise.all(running);
  return tasks;
}

/**
 * After the faults: every reviewer approves every card still waiting, once, so that more tasks
 * reach their end (a 2-approval review needs both; elsewhere the second click finds it decided).
 */
export async function approveWaiting(ctx: RunContext, tasks: RunTask[]): Promise<void> {
  const now = await look(ctx, tasks);
  for (const { card } of now.cards) {
    for (const reviewer of REVIEWERS) await ctx.driver.click(reviewer, card, 'signoff_approve');
    count(ctx.actions, 'approve');
  }
}
