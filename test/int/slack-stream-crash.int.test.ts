/**
 * A worker killed while an agent's words stream (issue 22): the next process to run the task
 * closes the stream the dead one left, its words replaced by a note, before the step runs again
 * and streams anew; the saved words are shown once. The first process is a real one, killed with
 * SIGKILL mid-stream; the second is this test's own service on the same database.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebClient } from '@slack/web-api';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createSlackLive } from '../../src/slack/outbound/streams.js';
import { createRateLimits } from '../../src/slack/shared/rate-limits.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { unusedPort } from '../helpers/ports.js';
import { startScript } from '../helpers/processes.js';
import { click, commandBody, postSigned, SIGNING_SECRET } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { shownIn } from '../helpers/slack-shown.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const TOKEN_MS = 60;
const answer = (n: number) =>
  `Answer ${n}: ${Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ')} end.`;
const model = new FakeOpenAI({ tokenDelayMs: TOKEN_MS, reply: (_, n) => answer(n) });
const YAML = `workflows:
  pair:
    maxIterations: 1
`;
const file = slackPerFile('slack_stream_crash', { model, yaml: YAML, service: false });
const { slack } = file;
const { rootOf, tsOf, cardsIn } = slackThreads(slack);

/**
 * A real process runs the task until its first agent's words stream, and is killed (SIGKILL);
 * `whileDown` then runs (what the dead process left, changed as a test needs); then a service of
 * this test's takes the task on, once the dead one's lease runs out, and the task reaches its card.
 */
async function killedMidStream(
  task: string,
  whileDown: () => Promise<void> = async () => undefined,
  then: 'card' | 'nothing' = 'card',
) {
  const port = await unusedPort();
  const config = join(mkdtempSync(join(tmpdir(), 'signoff-stream-crash-')), 'signoff.yml');
  writeFileSync(config, YAML);
  const worker = await startScript('test/fixtures/slack-worker.ts', {
    DATABASE_URL: file.db.url,
    PORT: String(port),
    SLACK_API_URL: slack.url,
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: model.url,
    SIGNOFF_CONFIG: config,
    SIGNOFF_LEASE_SECONDS: '3',
  });
  await postSigned(`http://127.0.0.1:${port}/slack/events`, commandBody(`pair ${task}`));
  const thread = tsOf(await until('root', () => rootOf(task)));
  const dead = await until('words streaming', () =>
    slack.streams.streams.find((s) => s.threadTs === thread && s.text.includes('word3')),
  );
  worker.kill('SIGKILL');
  await new Promise((r) => worker.once('exit', r));
  expect(dead.state).toBe('streaming');
  await whileDown();
  const second = await file.startService({ yaml: YAML, env: { SIGNOFF_LEASE_SECONDS: '3' } });
  if (then === 'nothing') return { thread, dead, said: [], second };
  await until('card', () => cardsIn(thread)[0], 30_000);
  const [saved] = await second.signoff.engine
    .listTasks({ limit: 100 })
    .then((tasks) => tasks.filter((t) => t.text === task));
  const said = (await second.signoff.engine.events(saved?.id as string)).flatMap((e) =>
    e.event.type === 'agent_said' ? [e.event.text] : [],
  );
  return { thread, dead, said, second };
}

/** The dead stream reads a note, and the saved answer reads once in the thread (its card quotes it). */
function expectShownOnce(thread: string, deadTs: string, said: string[]) {
  const shown = shownIn(slack, thread);
  const dead = shown.find((m) => m.ts === deadTs);
  expect(dead?.content).toMatch(/Interrupted before these words were saved/);
  expect(dead?.content).not.toMatch(/word3/);
  expect(said).toHaveLength(1);
  const answer = /Answer (\d+):/.exec(said[0] as string)?.[1];
  const replies = shown.filter((m) => !m.content.includes('"type":"actions"'));
  expect(replies.filter((m) => m.content.includes(`Answer ${answer}:`))).toHaveLength(1);
  expect(replies.filter((m) => /word39/.test(m.content))).toHaveLength(1);
}

describe('a worker killed mid-stream', () => {
  it('leaves a stream the next process closes with a note, and the saved words are shown once', async () => {
    const { thread, dead, said } = await killedMidStream('write the crash note');
    expectShownOnce(thread, dead.ts, said);
  }, 60_000);

  it('leaves a stream whose message it never recorded: the next process finds it in the thread and closes it with a note', async () => {
    const { thread, dead, said } = await killedMidStream('write the unrecorded note', async () => {
      // As if the process had died between Slack's answer to the start and recording it.
      const db = new pg.Client({ connectionString: file.db.url });
      await db.connect();
      try {
        const r = await db.query(
          `UPDATE signoff.slack_streams SET ts = NULL, state = 'starting' WHERE state = 'live' RETURNING id`,
        );
        expect(r.rowCount).toBe(1);
      } finally {
        await db.end();
      }
    });
    expectShownOnce(thread, dead.ts, said);
  }, 60_000);

  it('leaves a stream that is closed with a note when the task is cancelled before any process runs it again', async () => {
    const { thread, dead, second } = await killedMidStream('write the cancelled note', undefined, 'nothing');
    const events = `http://127.0.0.1:${second.port}/slack/events`;
    await postSigned(events, click('U0ANN', 'signoff_cancel', 'task', thread));
    const note = await stoppedNote(thread, dead.ts);
    expect(note.content).not.toMatch(/word3/);
    expect(dead.state).not.toBe('streaming');
  }, 60_000);

  it('leaves a stream that nothing else would come back to (its task ended, the end shown before it started): a process that runs tasks closes it with a note', async () => {
    const { thread, dead } = await killedMidStream(
      'write the forgotten note',
      // As if a run that had not heard of the cancel yet started it after the cancel was shown,
      // and its own close failed: the task is over, no status event is still to come, and the
      // stream has been open for minutes.
      () => streamed("SET status = 'cancelled'", '3 minutes'),
      'nothing',
    );
    const note = await stoppedNote(thread, dead.ts);
    expect(note.content).not.toMatch(/word3/);
    expect(dead.state).not.toBe('streaming');
  }, 60_000);

  it('the sweep of streams left open leaves a young one and one whose task works, and closes an old one of a task waiting for a review', async () => {
    const { thread, dead, second } = await killedMidStream(
      'write the waiting note',
      () => streamed("SET status = 'waiting'", '1 minute'),
      'nothing',
    );
    const live = createSlackLive({
      client: new WebClient('xoxb-test', { slackApiUrl: slack.url }),
      pool: second.signoff.db.pool,
      limits: createRateLimits(second.signoff.db.pool),
      logger: createLogger('silent'),
    });
    const sweep = () => live.closeAbandoned(second.signoff.engine.getTask);
    // A minute old: its run may still be closing it.
    await sweep();
    expect(dead.state).toBe('streaming');
    // Three minutes old, but its task works: its run's own (the next run closes what was left).
    await streamed("SET status = 'working'", '3 minutes');
    await sweep();
    expect(dead.state).toBe('streaming');
    // Its task waits for a review: no run comes back to it until someone decides.
    await streamed("SET status = 'waiting'", '3 minutes');
    await sweep();
    expect(dead.state).not.toBe('streaming');
    const note = shownIn(slack, thread).find((m) => m.ts === dead.ts);
    expect(note?.content).toMatch(/Interrupted before these words were saved/);
    expect(note?.content).not.toMatch(/word3/);
  }, 60_000);
  it('leaves a stream whose closer died while closing it (its task cancelled): closing ten minutes on, the sweep closes it', async () => {
    const { thread, dead } = await killedMidStream(
      'write the half-closed note',
      async () => {
        await streamed("SET status = 'cancelled'", '11 minutes');
        const db = new pg.Client({ connectionString: file.db.url });
        await db.connect();
        await db
          .query(`UPDATE signoff.slack_streams SET state = 'closing' WHERE state = 'live'`)
          .finally(() => db.end());
      },
      'nothing',
    );
    const note = await stoppedNote(thread, dead.ts);
    expect(note.content).not.toMatch(/word3/);
  }, 60_000);
});

/** The dead stream's message once it reads the note of a stop. */
const stoppedNote = (thread: string, ts: string) =>
  until('note', () =>
    shownIn(slack, thread).find((m) => m.ts === ts && /Stopped before these words/.test(m.content)),
  );

/**
 * The task with the one stream still live changed (`set`), no run of it due (the dead process's
 * job gone, as if its run had ended), and that stream started `ago`.
 */
async function streamed(set: string, ago: string) {
  const db = new pg.Client({ connectionString: file.db.url });
  await db.connect();
  try {
    const live = `SELECT task_id FROM signoff.slack_streams WHERE state = 'live'`;
    await db.query(`UPDATE signoff.tasks ${set} WHERE id IN (${live})`);
    await db.query(`DELETE FROM signoff.jobs WHERE key IN (SELECT 'run:' || task_id FROM (${live}) s)`);
    const r = await db.query(
      `UPDATE signoff.slack_streams SET created_at = now() - $1::interval WHERE state = 'live'`,
      [ago],
    );
    expect(r.rowCount).toBe(1);
  } finally {
    await db.end();
  }
}
