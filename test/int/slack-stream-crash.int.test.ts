/**
 * A worker killed while an agent's words stream (issue 22): the next process to run the task
 * closes the stream the dead one left, its words replaced by a note, before the step runs again
 * and streams anew; the saved words are shown once. The first process is a real one, killed with
 * SIGKILL mid-stream; the second is this test's own service on the same database.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { unusedPort } from '../helpers/ports.js';
import { startScript } from '../helpers/processes.js';
import { commandBody, postSigned, SIGNING_SECRET } from '../helpers/slack-requests.js';
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

describe('a worker killed mid-stream', () => {
  it('leaves a stream the next process closes with a note, and the saved words are shown once', async () => {
    const port = await unusedPort();
    const config = join(mkdtempSync(join(tmpdir(), 'signoff-stream-crash-')), 'signoff.yml');
    writeFileSync(config, YAML);
    const env = {
      DATABASE_URL: file.db.url,
      PORT: String(port),
      SLACK_API_URL: slack.url,
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.url,
      SIGNOFF_CONFIG: config,
      SIGNOFF_LEASE_SECONDS: '3',
    };
    const worker = await startScript('test/fixtures/slack-worker.ts', env);
    await postSigned(`http://127.0.0.1:${port}/slack/events`, commandBody('pair write the crash note'));
    const thread = tsOf(await until('root', () => rootOf('write the crash note')));
    const dead = await until('words streaming', () =>
      slack.streams.streams.find((s) => s.threadTs === thread && s.text.includes('word3')),
    );
    worker.kill('SIGKILL');
    await new Promise((r) => worker.once('exit', r));
    expect(dead.state).toBe('streaming');

    const second = await file.startService({ yaml: YAML, env: { SIGNOFF_LEASE_SECONDS: '3' } });
    await until('card', () => cardsIn(thread)[0], 30_000);

    // The dead process's stream shows a note now, not its words.
    const shown = shownIn(slack, thread);
    const deadShows = shown.find((m) => m.ts === dead.ts);
    expect(deadShows?.content).toMatch(/Interrupted before these words were saved/);
    expect(deadShows?.content).not.toMatch(/word3/);
    // The answer the task saved is shown exactly once in the thread (its review card quotes it).
    const said = shown.filter((m) => !m.content.includes('"type":"actions"'));
    const { engine } = second.signoff;
    const [task] = await engine.listTasks({ limit: 5 });
    const saved = (await engine.events(task?.id as string)).flatMap((e) =>
      e.event.type === 'agent_said' ? [e.event.text] : [],
    );
    expect(saved).toHaveLength(1);
    const answerNo = /Answer (\d+):/.exec(saved[0] as string)?.[1];
    expect(said.filter((m) => m.content.includes(`Answer ${answerNo}:`))).toHaveLength(1);
    expect(said.filter((m) => /word39/.test(m.content))).toHaveLength(1);
  }, 60_000);
});
