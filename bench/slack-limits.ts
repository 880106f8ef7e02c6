/**
 * Delivery under Slack's rate limits: 200 tasks started over 20 channels at 10 a second, against a
 * fake Slack that enforces the published limits (posts about one a second per channel with short
 * bursts, chat.update 50 a minute, streams' starts and stops 20 a minute), the agents answering
 * through the real ChatOpenAI client from the fake model server, a word every TOKEN_MS. Prints
 * how long until every task's first review card was up and until every call was made, each
 * divided by the time Slack's limits allow for those calls (its floor, simulated from the calls
 * actually made and when their tasks started), the Slack calls per task by method, how many
 * agents' messages were streamed and how many posted (the streams' budget spent), and the time
 * from a model's first word to that word in Slack: streamed, and posted once saved.
 * Run: npm run bench:slack-limits
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig } from '../src/config/config.js';
import { parseWorkflowConfig } from '../src/config/workflows.js';
import { createLogger } from '../src/logger.js';
import { startSlack } from '../src/main.js';
import { FakeOpenAI } from '../test/helpers/fake-openai.js';
import { PUBLISHED_LIMITS, type SlackCall, type SlackLimit } from '../test/helpers/fake-slack.js';
import { commandBody, postSigned } from '../test/helpers/slack-requests.js';
import { startSlackBench, TSX } from './slack-setup.js';
import { NO_START_LIMITS, quantile } from './stats.js';

const TASKS = 200;
const CHANNELS = 20;
const PER_SECOND = 10;
/** The fake model writes a word this often: an answer of ANSWER_WORDS takes about half a second. */
const TOKEN_MS = 25;
const ANSWER_WORDS = 20;
const logger = createLogger('silent');
const model = new FakeOpenAI({
  tokenDelayMs: TOKEN_MS,
  reply: (_, n) => `Answer ${n}: ${Array.from({ length: ANSWER_WORDS }, (_, i) => `word${i}`).join(' ')}.`,
});
await model.start();

interface Message {
  channel: string;
  ts: string;
  thread_ts?: string;
  text?: string;
}

/** When the last of `earliest` calls (each not before its time) could go under `limit`. */
function floorOf(earliest: number[], limit: SlackLimit): number {
  const period = 60_000 / limit.perMinute;
  let tat = Number.NEGATIVE_INFINITY;
  let last = 0;
  for (const e of [...earliest].sort((a, b) => a - b)) {
    const t = Math.max(e, tat - period * (limit.burst - 1));
    tat = Math.max(tat, t) + period;
    last = t;
  }
  return last;
}

/** The limited thing a call counts against (a method, or a method in a channel). */
const limitKey = (c: SlackCall) => {
  const limit = PUBLISHED_LIMITS[c.method];
  return limit?.perChannel ? `${c.method}:${String(c.args.channel)}` : c.method;
};

const bench = await startSlackBench('limits', logger);
const { read } = bench;
const env = { ...bench.env, OPENAI_API_KEY: 'sk-bench', OPENAI_BASE_URL: model.url };
const url = bench.databaseUrl;
const service = await startSlack(
  {
    ...loadConfig({ ...env, DATABASE_URL: url, SIGNOFF_ROLE: 'web' }),
    workflows: parseWorkflowConfig(`${NO_START_LIMITS}workflows:\n  pair:\n    maxIterations: 1\n`, 'bench'),
  },
  { logger },
);
const worker = spawn(process.execPath, [TSX, join(import.meta.dirname, 'slack-worker.ts')], {
  env: { ...process.env, ...env, DATABASE_URL: url, SIGNOFF_ROLE: 'worker', SIGNOFF_WORKERS: '8' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
await new Promise<void>((resolve) =>
  worker.stdout?.on('data', (d) => String(d).includes('ready') && resolve()),
);
const ours = `http://127.0.0.1:${service.port}/slack/events`;
const pool = service.signoff.db.pool;

try {
  const started: number[] = [];
  const t0 = Date.now();
  for (let i = 0; i < TASKS; i++) {
    const due = t0 + (i * 1000) / PER_SECOND;
    await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
    started.push(Date.now());
    const channel = `C${String(i % CHANNELS).padStart(3, '0')}`;
    void postSigned(ours, commandBody(`pair limits task ${i}`, 'U0ANN', { channel_id: channel }));
  }
  // Every task waits on its first card, and every event has gone out.
  for (;;) {
    const { rows } = await pool.query<{ waiting: number; pending: number }>(
      `SELECT (SELECT count(*) FROM signoff.tasks WHERE status = 'waiting')::int AS waiting,
              (SELECT count(*) FROM signoff.events WHERE delivered_at IS NULL AND failed_at IS NULL)::int AS pending`,
    );
    if (rows[0]?.waiting === TASKS && rows[0]?.pending === 0) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const calls = await read<SlackCall[]>('calls');
  const messages = await read<Message[]>('messages');
  // Which task each message belongs to (its root names the task), so each call's earliest
  // possible moment is its task's start.
  const taskOfRoot = new Map<string, number>();
  for (const m of messages) {
    const n = /limits task (\d+)/.exec(m.text ?? '');
    if (!m.thread_ts && n) taskOfRoot.set(m.ts, Number(n[1]));
  }
  const taskOfCall = (c: SlackCall): number | undefined => {
    const root = (c.args.thread_ts ?? c.args.ts) as string | undefined;
    if (root && taskOfRoot.has(root)) return taskOfRoot.get(root);
    const n = /limits task (\d+)/.exec(String(c.args.text ?? ''));
    return n ? Number(n[1]) : undefined;
  };
  const made = calls.filter((c) => !c.args.failed);
  const isCard = (c: SlackCall) =>
    c.method === 'chat.postMessage' && JSON.stringify(c.args.blocks ?? '').includes('signoff_approve');
  const firstCard = new Map<number, number>();
  for (const c of made.filter(isCard)) {
    const task = taskOfCall(c);
    if (task !== undefined && !firstCard.has(task)) firstCard.set(task, c.at ?? 0);
  }
  const cardsDone = Math.max(...firstCard.values());
  const drained = Math.max(...made.map((c) => c.at ?? 0));
  const floor = (cs: SlackCall[]) => {
    const byKey = new Map<string, number[]>();
    for (const c of cs) {
      if (!PUBLISHED_LIMITS[c.method]) continue;
      const key = limitKey(c);
      byKey.set(key, [...(byKey.get(key) ?? []), started[taskOfCall(c) ?? 0] ?? t0]);
    }
    return Math.max(
      ...[...byKey].map(([key, times]) =>
        floorOf(times, PUBLISHED_LIMITS[key.split(':')[0] ?? ''] as SlackLimit),
      ),
    );
  };
  const postsFloor = floor(made.filter((c) => c.method === 'chat.postMessage' && (c.at ?? 0) <= cardsDone));
  const allFloor = floor(made);
  const perTask = new Map<string, number>();
  for (const c of calls) perTask.set(c.method, (perTask.get(c.method) ?? 0) + 1);
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  console.log(
    `slack rate limits: ${TASKS} tasks over ${CHANNELS} channels at ${PER_SECOND}/s, fake Slack enforcing published limits`,
  );
  console.log(
    `  all first cards after ${s(cardsDone - t0)}; the posts' limits allow ${s(postsFloor - t0)}: ratio ${((cardsDone - t0) / (postsFloor - t0)).toFixed(2)}   (target ≤ 1.3)`,
  );
  console.log(
    `  every call made after ${s(drained - t0)}; the limits allow ${s(allFloor - t0)}: ratio ${((drained - t0) / (allFloor - t0)).toFixed(2)}   (target ≤ 1.1)`,
  );
  const limited = new Map<string, number>();
  for (const c of calls.filter((x) => x.args.limited))
    limited.set(c.method, (limited.get(c.method) ?? 0) + 1);
  console.log(
    `  first cards: ${firstCard.size} of ${TASKS}; 429s from Slack: ${[...limited].map(([m, n]) => `${m} ${n}`).join(', ') || 'none'}`,
  );
  // From each model call's first word to that word in Slack: the stream that showed it as it was
  // written, or the post of the saved message when no stream was free.
  const answerOf = (text: string) => /Answer (\d+):/.exec(text)?.[1];
  const streamedAt = new Map<string, number>();
  const postedAt = new Map<string, number>();
  for (const c of made) {
    const n =
      c.method === 'chat.startStream' || c.method === 'chat.appendStream'
        ? answerOf(String(c.args.markdown_text ?? ''))
        : c.method === 'chat.postMessage' && !isCard(c)
          ? answerOf(`${c.args.text ?? ''}`)
          : undefined;
    const at = c.method === 'chat.postMessage' ? postedAt : streamedAt;
    if (n && !at.has(n)) at.set(n, c.at ?? 0);
  }
  const sinceFirstWord = (at: Map<string, number>) =>
    [...at].flatMap(([n, t]) => {
      const first = model.calls[Number(n) - 1]?.firstTokenAt;
      return first ? [t - first] : [];
    });
  const streamed = sinceFirstWord(streamedAt);
  const posted = sinceFirstWord(postedAt);
  const ms = (xs: number[]) => (xs.length ? `${quantile(xs, 0.5).toFixed(0)} ms` : 'n/a');
  console.log(
    `  agents' messages: ${streamed.length} streamed, ${posted.length} posted when saved (the streams' Tier 2 budget spent)`,
  );
  console.log(
    `  a model's first word in Slack, median: streamed ${ms(streamed)} (target < 1000 ms); posted once saved ${ms(posted)}`,
  );
  console.log(
    `  Slack calls per task: ${[...perTask]
      .sort((a, b) => b[1] - a[1])
      .map(([m, n]) => `${m} ${(n / TASKS).toFixed(2)}`)
      .join(', ')}`,
  );
} finally {
  worker.kill('SIGTERM');
  await service.stop();
  await bench.stop();
  await model.stop();
}
process.exit(0);
