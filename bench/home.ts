/**
 * The App Home tab with many reviews waiting (issue 19, item 9): BENCH_PENDING (default 10,000)
 * pending reviews over 50 channels, seeded with INSERT … SELECT generate_series. A signed
 * app_home_opened goes to a web-role signoff (Bolt's HTTP receiver); the figure is the time from
 * sending it to the fake Slack (its own process, keeping Slack's published limits) receiving
 * views.publish. Prints the first open (nothing cached: one users.conversations for the person,
 * users.info, auth.test, the page's links), warm opens,
 * a More click deep in the list, and the engine's page read alone. Target: under 1 s.
 * Run: npx tsx bench/home.ts   (BENCH_PENDING=2000 for a quicker run)
 */
import { loadConfig } from '../src/config/config.js';
import { parseWorkflowConfig } from '../src/config/workflows.js';
import { createLogger } from '../src/logger.js';
import { startSlack } from '../src/main.js';
import type { SlackCall } from '../test/helpers/fake-slack.js';
import { seededRootTs, seedWaiting } from '../test/helpers/seed-reviews.js';
import { appHomeOpened, homeClick, postSigned } from '../test/helpers/slack-requests.js';
import { startSlackBench } from './slack-setup.js';
import { ms, quantile } from './stats.js';

const PENDING = Number(process.env.BENCH_PENDING ?? 10_000);
const CHANNELS = 50;
const WARM = 15;
const USER = 'U0BOB';
const logger = createLogger('silent');

const bench = await startSlackBench('home', logger);
const service = await startSlack(
  {
    ...loadConfig({ ...bench.env, DATABASE_URL: bench.databaseUrl, SIGNOFF_ROLE: 'web' }),
    workflows: parseWorkflowConfig('', 'bench'),
  },
  { logger },
);
const ours = `http://127.0.0.1:${service.port}/slack/events`;
const pool = service.signoff.db.pool;

/** Sends `body` and returns how long until the fake Slack answered the next views.publish for USER. */
async function timedHome(body: string, json: boolean): Promise<{ ms: number; view: unknown }> {
  const published = async () =>
    (await bench.read<SlackCall[]>('calls')).filter(
      (c) => c.method === 'views.publish' && c.args.user_id === USER,
    );
  const before = (await published()).length;
  const t0 = Date.now();
  const res = await postSigned(ours, body, { json });
  if (res.status !== 200) throw new Error(`Slack request refused: ${res.status}`);
  for (;;) {
    const call = (await published())[before];
    if (call) return { ms: (call.at ?? Date.now()) - t0, view: call.args.view };
    await new Promise((r) => setTimeout(r, 5));
  }
}

try {
  const t0 = Date.now();
  const per = Math.ceil(PENDING / CHANNELS);
  const ids: string[] = [];
  for (let c = 0; c < CHANNELS; c++) {
    const n = Math.min(per, PENDING - c * per);
    if (n <= 0) break;
    // Half the channels' reviews are anyone's, half name the person; older channels first.
    ids.push(
      ...(await seedWaiting(pool, {
        prefix: `bench ${c}`,
        n,
        channel: `C${String(c).padStart(4, '0')}`,
        reviewers: c % 2 ? [USER] : ['anyone'],
        ageSeconds: (CHANNELS - c) * per + n,
      })),
    );
    // Their roots are in Slack, as a workspace's are: the tab links them with Slack's permalinks.
    await bench.keep(
      Array.from({ length: n }, (_, i) => ({
        channel: `C${String(c).padStart(4, '0')}`,
        ts: seededRootTs(i + 1),
      })),
    );
  }
  await pool.query('ANALYZE signoff.reviews; ANALYZE signoff.tasks');
  console.log(
    `home tab: ${ids.length} pending reviews over ${CHANNELS} channels (seeded in ${Date.now() - t0} ms)`,
  );

  const cold = await timedHome(appHomeOpened(USER), true);
  const shown = JSON.stringify(cold.view).match(/\d+–\d+ of \d+[^"]*/)?.[0];
  console.log(`  first open (nothing cached)    ${ms(cold.ms)}   shows "${shown}"`);
  const warm: number[] = [];
  for (let i = 0; i < WARM; i++) warm.push((await timedHome(appHomeOpened(USER), true)).ms);
  console.log(
    `  warm opens (${WARM})              median ${ms(quantile(warm, 0.5))}  max ${ms(Math.max(...warm))}`,
  );
  const deep = ids[ids.length - 30] as string;
  const more = await timedHome(homeClick(USER, 'signoff_home_more', deep), false);
  const where = JSON.stringify(more.view).match(/\d+–\d+ of \d+[^"]*/)?.[0];
  console.log(`  More, near the end of the list ${ms(more.ms)}   shows "${where}"`);

  const reads: number[] = [];
  const places = Array.from({ length: CHANNELS }, (_, c) => `C${String(c).padStart(4, '0')}`);
  for (let i = 0; i < WARM; i++) {
    const s = performance.now();
    await service.signoff.engine.reviewsFor('slack', { id: USER }, { places, limit: 20 });
    reads.push(performance.now() - s);
  }
  console.log(
    `  engine page read alone         median ${ms(quantile(reads, 0.5))}  max ${ms(Math.max(...reads))}`,
  );
  const worst = Math.max(cold.ms, ...warm, more.ms);
  console.log(`  slowest Home tab ${ms(worst)}   (target < 1000 ms)`);
} finally {
  await service.stop();
  await bench.stop();
}
process.exit(0);
