/**
 * Slack ack latency: signed button clicks sent all at once to (a) a bare Bolt app whose listener
 * only acks and (b) signoff in its production shape (a web-role process answering Slack and a
 * worker-role process running the graphs), where every click names a real review card and is
 * decided after the ack. Prints median and p99 of each, their ratio, and the slowest ack of 1,000 clicks at once.
 * Run: npm run bench:slack
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { App } from '@slack/bolt';
import { loadConfig } from '../src/config/config.js';
import { parseWorkflowConfig } from '../src/config/workflows.js';
import { createLogger } from '../src/logger.js';
import { startSlack } from '../src/main.js';
import type { SlackCall } from '../test/helpers/fake-slack.js';
import { click, commandBody, postSigned, SIGNING_SECRET } from '../test/helpers/slack-requests.js';
import { startSlackBench, TSX } from './slack-setup.js';
import { ms, NO_START_LIMITS, quantile } from './stats.js';

const CONCURRENT = 200;
const CHANNELS = 100;
/** Rounds of (bare, signoff), each signoff round on fresh cards: one round on a 2-core host is noisy. */
const ROUNDS = 3;
const BURST = 1000;
const WARM = 10;
const logger = createLogger('silent');

async function timed(url: string, bodies: string[]): Promise<number[]> {
  return Promise.all(
    bodies.map(async (body) => {
      const t0 = performance.now();
      const res = await postSigned(url, body);
      if (res.status !== 200) throw new Error(`ack failed: ${res.status}`);
      return performance.now() - t0;
    }),
  );
}

// The fake Slack, the worker and the measured web process each get their own process, as Slack,
// a worker and a web replica would be in production. Without Slack's limits: this bench measures
// acks, and its setup (610 tasks' cards and status updates) and its clicks (200 people at once,
// each asked of users.info) go far past what Slack takes in a minute; bench:slack-limits and
// bench:home are the ones held to Slack's limits.
const bench = await startSlackBench('ack', logger, { FAKE_SLACK_LIMITS: 'none' });
const { slackUrl, env } = bench;
const url = bench.databaseUrl;
const slackCalls = () => bench.read<SlackCall[]>('calls');

const bare = new App({
  token: env.SLACK_BOT_TOKEN,
  signingSecret: SIGNING_SECRET,
  clientOptions: { slackApiUrl: slackUrl },
  logger: {
    debug() {},
    info() {},
    warn() {},
    error() {},
    setLevel() {},
    getLevel: () => 'error' as never,
    setName() {},
  },
});
bare.action('signoff_approve', async ({ ack }) => {
  await ack();
});
const bareServer = (await bare.start(0)) as unknown as { address(): { port: number } };
const bareUrl = `http://127.0.0.1:${bareServer.address().port}/slack/events`;

// Production shape: this process answers Slack (web role); a worker process runs the graphs.
const service = await startSlack(
  {
    ...loadConfig({ ...env, DATABASE_URL: url, SIGNOFF_ROLE: 'web' }),
    workflows: parseWorkflowConfig(`${NO_START_LIMITS}workflows:\n  pair:\n    maxIterations: 1\n`, 'bench'),
  },
  { logger },
);
// The worker runs at a lower CPU priority, as background work beside a web replica on one small
// host should: on two cores its graph runs would otherwise take the CPU the acks need.
const worker = spawn(
  'nice',
  ['-n', '15', process.execPath, TSX, join(import.meta.dirname, 'slack-worker.ts')],
  {
    env: { ...process.env, ...env, DATABASE_URL: url, SIGNOFF_ROLE: 'worker', SIGNOFF_WORKERS: '8' },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
await new Promise<void>((resolve) =>
  worker.stdout?.on('data', (d) => String(d).includes('ready') && resolve()),
);
const ours = `http://127.0.0.1:${service.port}/slack/events`;
try {
  // One card per click: start tasks and wait for their cards.
  const CARDS = CONCURRENT * ROUNDS + WARM;
  // Over many channels, as a team's tasks are: delivery keeps Slack's limit of about one post a
  // second per channel, so 600 cards in one channel would take ten minutes.
  for (let i = 0; i < CARDS; i++)
    await postSigned(ours, commandBody(`pair bench task ${i}`, 'U0ANN', { channel_id: `C${i % CHANNELS}` }));
  let cards: { value: string; ts: string; channel: string }[] = [];
  for (let tries = 0; tries < 600 && cards.length < CARDS; tries++) {
    await new Promise((r) => setTimeout(r, 250));
    let ts = 1_700_000_000;
    cards = [];
    for (const c of await slackCalls()) {
      if (c.method !== 'chat.postMessage' || c.args.failed) continue;
      ts += 1;
      const actions = (
        c.args.blocks as { type: string; elements?: { action_id: string; value: string }[] }[] | undefined
      )?.find((b) => b.type === 'actions');
      const approve = actions?.elements?.find((e) => e.action_id === 'signoff_approve');
      if (approve) cards.push({ value: approve.value, ts: `${ts}.000100`, channel: String(c.args.channel) });
    }
  }
  const all = cards.map((c, i) => click(`U${i}`, 'signoff_approve', c.value, c.ts, undefined, c.channel));
  const idle = async () => {
    for (;;) {
      const { rows } = await service.signoff.db.pool.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM signoff.tasks WHERE status = 'working')
              + (SELECT count(*) FROM signoff.jobs WHERE key LIKE 'run:%')::int AS n`,
      );
      if (Number(rows[0]?.n) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const warm = all.slice(CONCURRENT * ROUNDS);
  // Warm both paths once, on cards that are not measured.
  await timed(bareUrl, warm);
  await timed(ours, warm);
  const rounds: { b: number[]; o: number[] }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Earlier decisions and their graph runs finish first: neither side may share its round with them.
    await idle();
    const clicks = all.slice(r * CONCURRENT, (r + 1) * CONCURRENT);
    rounds.push({ b: await timed(bareUrl, clicks), o: await timed(ours, clicks) });
  }
  const median = (xs: number[]) => quantile(xs, 0.5);
  const ratios = rounds.map(({ b, o }) => median(o) / median(b));
  const b = rounds.flatMap((x) => x.b);
  const o = rounds.flatMap((x) => x.o);
  console.log(
    `slack ack latency, ${CONCURRENT} clicks at once, ${ROUNDS} rounds (each click on a real review card for signoff):`,
  );
  console.log(`  bare Bolt app  median ${ms(median(b))}  p99 ${ms(quantile(b, 0.99))}`);
  console.log(`  signoff        median ${ms(median(o))}  p99 ${ms(quantile(o, 0.99))}`);
  console.log(
    `  ratio (median of the rounds' ratios) ${median(ratios).toFixed(2)}   [${ratios.map((x) => x.toFixed(2)).join(', ')}]   (target ≤ 1.25)`,
  );
  const clicks = all.slice(0, CONCURRENT);
  const burst = Array.from({ length: BURST }, (_, i) => clicks[i % clicks.length] as string);
  const slowest = Math.max(...(await timed(ours, burst)));
  console.log(
    `  slowest ack of ${BURST} clicks at once (repeats of the same cards): ${ms(slowest)}   (target well under 3 s)`,
  );
} finally {
  worker.kill('SIGTERM');
  await service.stop();
  await bare.stop();
  await bench.stop();
}
// Keep-alive sockets of the clients above would hold the process open for minutes.
process.exit(0);
