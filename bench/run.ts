/**
 * signoff benchmark: prints figures, asserts nothing. On a shared 2-core machine absolute numbers
 * wander, so each engine figure stands next to a floor measured in the same run.
 * Run: npm run bench  (an embedded PostgreSQL in a temp dir, or DATABASE_URL)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/config.js';
import { parseWorkflowConfig } from '../src/config/workflows.js';
import { openDatabase } from '../src/db/database.js';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { createLogger } from '../src/logger.js';
import { proposalWorkflow } from '../src/workflows/proposal/proposal-graph.js';
import { FakeOpenAI } from '../test/helpers/fake-openai.js';
import { engine } from './engine.js';
import { floor } from './floor.js';
import { BENCH_CONFIG, ms, quantile } from './stats.js';
import { bytesPerTask } from './storage.js';

const ROUNDS = 200;
const TASKS = 200;
const ROUNDS_PER_TASK = 3;
const PROPOSAL_ROUNDS = 100;
const PROPOSAL_TASKS = 100;
const WORKERS = 16;
const logger = createLogger('silent');

const given = process.env.DATABASE_URL;
const dir = given ? undefined : mkdtempSync(join(tmpdir(), 'signoff-bench-'));
const server = dir ? await startEmbeddedPostgres(dir, logger) : undefined;
const url = given ?? (server?.url as string);
const db = await openDatabase({
  url,
  dataDir: '',
  logger,
  poolSize: Number(process.env.BENCH_POOL ?? WORKERS * 2 + 20),
});
const config = {
  ...loadConfig({ DATABASE_URL: url, SIGNOFF_WORKERS: String(WORKERS) }),
  workflows: parseWorkflowConfig(BENCH_CONFIG, 'bench'),
};
try {
  console.log(
    `signoff bench: node ${process.version}; pair workflow (3 agent turns + review per round); offline model; ${WORKERS} workers\n`,
  );
  const f = await floor(db.pool, ROUNDS, TASKS, ROUNDS_PER_TASK);
  const e = await engine(config, db, logger, ROUNDS, TASKS, ROUNDS_PER_TASK);
  const [fm, em] = [quantile(f.latency, 0.5), quantile(e.latency, 0.5)];
  console.log('latency, one task at a time (resume or decide → next review):');
  console.log(`  floor  LangGraph + PostgresSaver   median ${ms(fm)}  p99 ${ms(quantile(f.latency, 0.99))}`);
  console.log(`  engine signoff, decide → delivered  median ${ms(em)}  p99 ${ms(quantile(e.latency, 0.99))}`);
  console.log(`  ratio  engine / floor (median)      ${(em / fm).toFixed(2)}   (target ≤ 3)\n`);
  console.log(`throughput, ${TASKS} tasks × ${ROUNDS_PER_TASK} rounds at once:`);
  console.log(`  floor  ${f.perSecond.toFixed(0)} review rounds/s`);
  console.log(
    `  engine ${e.perSecond.toFixed(0)} review rounds/s   (target ≥ 100; ratio to floor ${(e.perSecond / f.perSecond).toFixed(2)})\n`,
  );
  // The same engine on the real ChatOpenAI client, against a local OpenAI-compatible server that
  // answers at once: what the client itself (HTTP, JSON, retries' bookkeeping) adds to a round.
  const model = new FakeOpenAI();
  await model.start();
  try {
    const openai = {
      ...config,
      model: { ...config.model, apiKey: 'sk-bench', baseUrl: model.url, name: 'gpt-4o-mini' },
    };
    const o = await engine(openai, db, logger, ROUNDS, TASKS, ROUNDS_PER_TASK, 'pair', 0, 'openai');
    const om = quantile(o.latency, 0.5);
    console.log('the same, on the OpenAI client against a local compatible server answering at once:');
    console.log(
      `  engine median ${ms(om)}  p99 ${ms(quantile(o.latency, 0.99))}; ratio to the offline model ${(om / em).toFixed(2)}`,
    );
    console.log(
      `  throughput ${o.perSecond.toFixed(0)} review rounds/s (offline model ${e.perSecond.toFixed(0)}); ${model.calls.length} model calls\n`,
    );
  } finally {
    await model.stop();
  }
  // proposal: each measured round is a revision of the plan: the writer, then the novelty and
  // feasibility reviewers in parallel, then the chair, then the person's next review.
  const pf = await floor(db.pool, PROPOSAL_ROUNDS, PROPOSAL_TASKS, ROUNDS_PER_TASK, proposalWorkflow, 2);
  const pe = await engine(
    config,
    db,
    logger,
    PROPOSAL_ROUNDS,
    PROPOSAL_TASKS,
    ROUNDS_PER_TASK,
    'proposal',
    2,
  );
  const [pfm, pem] = [quantile(pf.latency, 0.5), quantile(pe.latency, 0.5)];
  console.log(
    'proposal (plan → parallel novelty and feasibility reviews → chair → human review), per revision:',
  );
  console.log(`  floor  median ${ms(pfm)}  p99 ${ms(quantile(pf.latency, 0.99))}`);
  console.log(`  engine median ${ms(pem)}  p99 ${ms(quantile(pe.latency, 0.99))}`);
  console.log(`  ratio  ${(pem / pfm).toFixed(2)}   (target ≤ 3)`);
  console.log(
    `  throughput, ${PROPOSAL_TASKS} tasks × ${ROUNDS_PER_TASK}: floor ${pf.perSecond.toFixed(0)}, engine ${pe.perSecond.toFixed(0)} revisions/s (ratio ${(pe.perSecond / pf.perSecond).toFixed(2)})\n`,
  );

  const small = await bytesPerTask(config, db, logger, 50);
  const large = await bytesPerTask(config, db, logger, 500);
  const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;
  console.log('storage per task, ~500-character messages:');
  console.log(
    `  ${kb(small)} at 50 messages, ${kb(large)} at 500; ratio ${(large / small).toFixed(1)}   (target ≤ 12; linear = 10)`,
  );
} finally {
  await db.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
