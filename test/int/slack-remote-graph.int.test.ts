/**
 * A workflow whose graph runs on a LangGraph server (`remote:` in the config file), against the
 * real in-memory server of `@langchain/langgraph-api` running examples/remote-graph: its
 * interrupts (signoff's own shape, then a HITLRequest; the Agent Inbox's) are cards, a click
 * resumes the run on the server and it ends; a redirect cancels the run on the server and starts
 * the new goal on a new thread there; a server down at the start, killed mid-run or silent, or a
 * run's stream cut short, is a sentence and Retry, and Retry once it is back goes on; a cancel
 * cancels the run on the server.
 */
import { createServer } from 'node:http';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteThreadId } from '../../src/workflows/remote/thread-ids.js';
import { type CuttingProxy, cuttingProxy } from '../helpers/cutting-proxy.js';
import { type HoldingProxy, holdingProxy } from '../helpers/holding-proxy.js';
import { langGraphServer } from '../helpers/langgraph-server.js';
import { unusedPort } from '../helpers/ports.js';
import { click, commandBody, postSigned, threadMessage } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { type Post, slackThreads, until } from '../helpers/slack-thread.js';

const server = langGraphServer(await unusedPort());
// A server that takes connections and never answers.
const silent = createServer(() => undefined);
const silentPort = await unusedPort();
// In front of the server, a proxy that never tells it that signoff hung up a run's stream.
const proxyPort = await unusedPort();
let proxy: HoldingProxy;
// In front of the server, a proxy that ends the first run's stream early, as if it were over.
const cuttingPort = await unusedPort();
let cutting: CuttingProxy;

const file = slackPerFile('slack_remote_graph', {
  yaml: `workflows:
  release:
    remote: { url: "${server.url}", graph: release }
  hanging:
    remote: { url: "${server.url}", graph: hanging, timeoutSeconds: 5 }
  inbox:
    remote: { url: "${server.url}", graph: inbox }
  proxied:
    remote: { url: "http://127.0.0.1:${proxyPort}", graph: inbox }
  held:
    remote: { url: "http://127.0.0.1:${proxyPort}", graph: hanging, timeoutSeconds: 5 }
  cut:
    remote: { url: "http://127.0.0.1:${cuttingPort}", graph: release }
  mute:
    remote: { url: "http://127.0.0.1:${silentPort}", graph: release, timeoutSeconds: 1 }
`,
});
const { slack } = file;
const { posts, cardsIn, rootOf, tsOf, buttons } = slackThreads(slack);
const client = new Client({ apiUrl: server.url, apiKey: null });

beforeAll(async () => {
  await server.start();
  await new Promise<void>((resolve) => silent.listen(silentPort, '127.0.0.1', resolve));
  proxy = await holdingProxy(proxyPort, server.url);
  cutting = await cuttingProxy(cuttingPort, server.url);
});
afterAll(async () => {
  await proxy?.close();
  await cutting?.close();
  silent.closeAllConnections();
  await new Promise((resolve) => silent.close(resolve));
  await server.stop();
});

const UNREACHABLE = 'The LangGraph server this workflow runs on could not be reached';

const rootSays = (thread: string, words: string, ms?: number) =>
  until(
    `root says ${words}`,
    () =>
      slack.callsOf('chat.update').find((u) => u.ts === thread && JSON.stringify(u.blocks).includes(words)),
    ms,
  );
const inThread = (thread: string) => posts().filter((p) => p.thread_ts === thread);
const value = (card: Post, id: string) => buttons(card).find((b) => b.action_id === id)?.value ?? '';
const approve = (card: Post, thread: string) =>
  postSigned(
    file.events,
    click('U0BOB', 'signoff_approve', value(card, 'signoff_approve'), tsOf(card), thread),
  );

async function start(command: string, text: string) {
  await postSigned(file.events, commandBody(`${command} ${text}`));
  return tsOf(await until('root', () => rootOf(text)));
}

/** The id of the task whose goal is now `text`. */
async function taskIdOf(text: string): Promise<string> {
  const r = await file.service.signoff.db.pool.query<{ id: string }>(
    'SELECT id FROM signoff.tasks WHERE text = $1',
    [text],
  );
  const id = r.rows[0]?.id;
  if (!id) throw new Error(`no task "${text}"`);
  return id;
}

/** The thread on the LangGraph server of the task started with `text` (not redirected: its first graph thread). */
const remoteThreadOf = async (text: string) => remoteThreadId(await taskIdOf(text));

/** The runs on a server thread once none is pending or running. */
const settledRuns = (thread: string) =>
  until('the runs on the server thread settled', async () => {
    const all = await client.runs.list(thread);
    return all.length && all.every((r) => r.status !== 'pending' && r.status !== 'running') ? all : undefined;
  });

describe('a graph on a LangGraph server', () => {
  it("signoff's review and a HITLRequest become cards; each click resumes the run on the server, which ends", async () => {
    const thread = await start('release', 'the v2 launch');
    const review = await until('review card', () => cardsIn(thread)[0], 30_000);
    expect(JSON.stringify(review.blocks)).toContain('Publish this release note?');
    expect(JSON.stringify(review.blocks)).toContain('Release note (draft 1) for the v2 launch');
    await approve(review, thread);

    const call = await until('tool call card', () => cardsIn(thread)[1], 30_000);
    expect(JSON.stringify(call.blocks)).toContain('send_announcement');
    expect(buttons(call).map((b) => b.action_id)).toEqual([
      'signoff_approve',
      'signoff_edit',
      'signoff_reject',
      'signoff_claim',
      'signoff_hand_over',
    ]);
    await approve(call, thread);

    await rootSays(thread, 'Done', 30_000);
    await until('the graph said it in the thread', () =>
      inThread(thread).find((p) => p.text.includes('Published and announced in #releases.')),
    );
    // The run on the server ended: nothing is left to run on its thread.
    const state = await client.threads.getState(await remoteThreadOf('the v2 launch'));
    expect(state.next).toEqual([]);
    expect(JSON.stringify(state.values)).toContain('Published and announced in #releases.');
  });

  it('an Agent Inbox interrupt becomes a card; Approve resumes the run on the server with `accept`, and it ends', async () => {
    const thread = await start('inbox', 'the billing service');
    const card = await until('inbox card', () => cardsIn(thread)[0], 30_000);
    expect(JSON.stringify(card.blocks)).toContain('deploy');
    expect(JSON.stringify(card.blocks)).toContain('Deploy the billing service to production?');
    expect(buttons(card).map((b) => b.action_id)).toContain('signoff_approve');
    await approve(card, thread);

    await rootSays(thread, 'Done', 30_000);
    const remote = await remoteThreadOf('the billing service');
    const state = await client.threads.getState<{ messages: { content: string }[] }>(remote);
    expect(state.next).toEqual([]);
    // The graph got the Agent Inbox's own answer to an approval, word for word.
    expect(state.values.messages.at(-1)?.content).toBe(
      `Inbox answer: ${JSON.stringify([{ type: 'accept', args: null }])}`,
    );
    expect((await settledRuns(remote)).map((r) => r.status)).toEqual(['success', 'success']);
  });

  it('"redirect:" while the remote run works cancels that run on the server (told, not left to notice the hang-up); the new goal runs on a new server thread to its card', async () => {
    const before = server.stdout().split('slow work started').length;
    // Through the proxy, the server cannot tell that signoff stopped reading: only a cancel stops the run.
    const thread = await start('proxied', 'slow: the search service');
    await until(
      'the run is under way on the server',
      () => (server.stdout().split('slow work started').length > before ? true : undefined),
      30_000,
    );
    const task = await taskIdOf('slow: the search service');
    await postSigned(file.events, threadMessage('U0ANN', 'redirect: the payments service', thread), {
      json: true,
    });

    // The run that was going stopped on the server: interrupted, never finished.
    const old = await settledRuns(remoteThreadId(task));
    expect(old.map((r) => r.status)).toEqual(['interrupted']);
    expect((await client.threads.getState(remoteThreadId(task))).values).not.toHaveProperty('messages.1');

    // The new goal is a new generation: a thread of its own on the server, which reaches the card.
    const card = await until('card for the new goal', () => cardsIn(thread)[0], 30_000);
    expect(JSON.stringify(card.blocks)).toContain('Deploy the payments service to production?');
    expect(JSON.stringify(card.blocks)).not.toContain('Deploy slow: the search service');
    const fresh = remoteThreadId(`${task}#1`);
    const state = await client.threads.getState(fresh);
    expect(state.next).toEqual(['ask']);
    expect(JSON.stringify(state.values)).toContain('Ready to deploy: the payments service');
  });

  it('a run whose stream ends before the run did (cut short, no error): a sentence and Retry, never Done without its review; Retry reaches the card', async () => {
    const thread = await start('cut', 'the cut release');
    const failed = await rootSays(thread, 'The LangGraph server this workflow runs on', 30_000);
    expect(cutting.cut()).toBe(1);
    expect(JSON.stringify(failed.blocks)).toContain('signoff_retry');
    expect(
      slack.callsOf('chat.update').some((u) => u.ts === thread && JSON.stringify(u.blocks).includes('Done')),
    ).toBe(false);
    await postSigned(file.events, click('U0ANN', 'signoff_retry', 'task', thread));
    const card = await until('review card after the retry', () => cardsIn(thread)[0], 30_000);
    expect(JSON.stringify(card.blocks)).toContain('Publish this release note?');
  });

  it('a server down when the task starts: a sentence and Retry, not a task left working; Retry once it is back runs it', async () => {
    await server.stop();
    const thread = await start('hanging', 'sort the backlog');
    const failed = await rootSays(thread, UNREACHABLE, 30_000);
    expect(JSON.stringify(failed.blocks)).toContain('signoff_retry');

    await server.start();
    await postSigned(file.events, click('U0ANN', 'signoff_retry', 'task', thread));
    const card = await until('review card after the retry', () => cardsIn(thread)[0], 30_000);
    expect(JSON.stringify(card.blocks)).toContain('Keep the work?');
  });

  it('the server killed mid-run: a sentence and Retry; Retry once it is back resumes, a click ends the run', async () => {
    await server.stop();
    await server.start({ hang: true });
    const thread = await start('hanging', 'tidy the wiki');
    await until(
      'the run is under way on the server',
      () => (server.stdout().includes('work started') ? true : undefined),
      30_000,
    );
    await server.kill();
    const failed = await rootSays(thread, UNREACHABLE, 30_000);
    expect(JSON.stringify(failed.blocks)).toContain('signoff_retry');

    await server.start();
    await postSigned(file.events, click('U0ANN', 'signoff_retry', 'task', thread));
    const card = await until('review card after the retry', () => cardsIn(thread)[0], 30_000);
    await approve(card, thread);
    await rootSays(thread, 'Done', 30_000);
    const state = await client.threads.getState(await remoteThreadOf('tidy the wiki'));
    expect(state.next).toEqual([]);
  });

  it('a cancel in Slack cancels the run on the server (told, not left to notice the hang-up)', async () => {
    await server.stop();
    await server.start({ hang: true });
    // Through the proxy, the server cannot tell that signoff stopped reading: only a cancel stops the run.
    const thread = await start('held', 'prune the old branches');
    await until(
      'the run is under way on the server',
      () => (server.stdout().includes('work started') ? true : undefined),
      30_000,
    );
    await postSigned(file.events, click('U0ANN', 'signoff_cancel', 'task', thread));
    await rootSays(thread, 'Cancelled');
    const runs = await settledRuns(await remoteThreadOf('prune the old branches'));
    expect(runs.map((r) => r.status)).toEqual(['interrupted']);
  });

  it("a graph that fails on the server: a sentence and Retry, never the server's words", async () => {
    const thread = await start('hanging', 'explode the build');
    const failed = await rootSays(thread, 'The graph on the LangGraph server failed in this step', 30_000);
    expect(JSON.stringify(failed.blocks)).toContain('signoff_retry');
    expect(JSON.stringify(slack.calls)).not.toContain('hunter2');
  });

  it('a server that takes the connection and never answers: a sentence and Retry within the timeout', async () => {
    const thread = await start('mute', 'the quiet release');
    const failed = await rootSays(
      thread,
      'The LangGraph server this workflow runs on did not answer in time',
      30_000,
    );
    expect(JSON.stringify(failed.blocks)).toContain('signoff_retry');
  });

  it('a server that hangs mid-run (frozen): asked about the silent run, it does not answer; a sentence and Retry', async () => {
    await server.stop();
    await server.start({ hang: true });
    const thread = await start('hanging', 'file the expenses');
    await until(
      'the run is under way on the server',
      () => (server.stdout().includes('work started') ? true : undefined),
      30_000,
    );
    server.freeze();
    const failed = await rootSays(
      thread,
      'The LangGraph server this workflow runs on did not answer in time',
      40_000,
    );
    expect(JSON.stringify(failed.blocks)).toContain('signoff_retry');
    await server.stop();
  });
});
