/**
 * Agents' words streamed into the thread as the model writes them (issue 22), end to end: a
 * signed /signoff through Bolt's HTTP receiver, the real ChatOpenAI client against the fake model
 * server writing a word every TOKEN_MS, and the fake Slack's streams (strict as Slack's reference).
 * What was shown is what is saved once the step is: each stream's message becomes its agent's
 * message, and the words are never posted a second time.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { click, commandBody, postSigned, threadMessage } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { shownIn } from '../helpers/slack-shown.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const TOKEN_MS = 40;
const WORDS = 30;
/** Each call's answer: its number, then words enough to take WORDS × TOKEN_MS to write. */
const answer = (n: number) =>
  `Answer ${n}: ${Array.from({ length: WORDS - 2 }, (_, i) => `word${i}`).join(' ')} end.`;

const model = new FakeOpenAI({ tokenDelayMs: TOKEN_MS, reply: (_, n) => answer(n) });
const YAML = `workflows:
  pair:
    maxIterations: 2
  decorated:
    module: ./test/fixtures/decorated-graph.ts
`;
const file = slackPerFile('slack_streams', { model, yaml: YAML });
const { slack } = file;
const { posts, rootOf, tsOf, cardsIn } = slackThreads(slack);

/**
 * A minute passes for Slack's stream budget (Tier 2): each test starts with it whole, as if the
 * tests before it ran a minute earlier. Slack's clock moves on, and signoff's own count of it
 * (its rate-limit rows) forgets what was spent.
 */
beforeEach(async () => {
  slack.later(60_000);
  const { pool } = file.service.signoff.db;
  await pool.query(`DELETE FROM signoff.rate_limits WHERE key LIKE 'slack:chat.%Stream'`);
  await pool.query(`DELETE FROM signoff.rate_window_calls WHERE key LIKE 'slack:chat.%Stream'`);
});

let n = 0;
async function start(task: string) {
  const text = `${task} ${++n}`;
  await postSigned(file.events, commandBody(`pair ${text}`));
  return tsOf(await until('root', () => rootOf(text)));
}

describe('words streamed as the model writes them', () => {
  it('shows an agent’s first words in the thread before the model has finished writing them', async () => {
    const thread = await start('stream early');
    const first = await until('a stream with words', () =>
      slack.streams.streams.find((s) => s.threadTs === thread && s.text.length > 0),
    );
    // Streaming still, and only part of the answer: the model is still writing.
    expect(first.state).toBe('streaming');
    expect(first.text.length).toBeGreaterThan(0);
    expect(first.text).not.toContain('end.');
    await until('card', () => cardsIn(thread)[0]);
  });

  it('turns each stream into its agent’s message with the saved words, under its name, and never posts them again', async () => {
    const thread = await start('stream whole');
    await until('card', () => cardsIn(thread)[0]);
    const streams = slack.streams.streams.filter((s) => s.threadTs === thread);
    // Two turns, each its own stream, each stopped.
    expect(streams).toHaveLength(2);
    const shown = shownIn(slack, thread);
    for (const s of streams) {
      expect(s.state).toBe('stopped');
      // The saved words, whole (they are what streamed: the message needs no edit).
      expect(shown.find((m) => m.ts === s.ts)?.content).toMatch(/^Answer \d+: word0 .* end\.$/);
      // Every word the model wrote went out as it came (none lost between two appends): handed
      // over without an edit.
      expect(slack.callsOf('chat.update').filter((c) => c.ts === s.ts)).toEqual([]);
    }
    const starts = slack.callsOf('chat.startStream').filter((c) => c.thread_ts === thread && !c.failed);
    expect(starts.map((c) => c.username).sort()).toEqual(['Author', 'Reviewer']);
    // No post in the thread repeats an agent's words.
    // (The review card quotes them, as it always has.)
    const repeated = posts().filter(
      (p) =>
        p.thread_ts === thread &&
        /Answer \d+:/.test(JSON.stringify(p)) &&
        !p.blocks.some((b) => b.type === 'actions'),
    );
    expect(repeated).toEqual([]);
  });

  /** The thread's first stream once it shows words, and the model call writing them. */
  async function midStream(thread: string) {
    const stream = await until('words streaming', () =>
      slack.streams.streams.find((s) => s.threadTs === thread && s.text.includes('word2')),
    );
    const call = model.calls.at(-1);
    return { stream, call };
  }
  const taskOf = async (thread: string) =>
    (await file.service.signoff.engine.listTasks({ limit: 100 })).find(
      (t) => (t.origin as { ts?: string }).ts === thread,
    );

  it('stops the stream and the model call when the task is cancelled mid-stream, its words replaced by a note', async () => {
    // The first answer is written slowly: the cancel comes while it is.
    model.failNext({ tokenDelayMs: 150 });
    const thread = await start('stream cancelled');
    const { stream, call } = await midStream(thread);
    await postSigned(file.events, click('U0ANN', 'signoff_cancel', 'task', thread));
    await until('stream stopped', () => (stream.state === 'stopped' ? stream : undefined));
    await until('model call closed', () => (call?.hungUp ? call : undefined));
    expect(call?.tokensSent).toBeLessThan(WORDS);
    const note = await until('note', () =>
      shownIn(slack, thread).find((m) => m.ts === stream.ts && /Stopped before/.test(m.content)),
    );
    expect(note.content).not.toMatch(/word2/);
    expect((await taskOf(thread))?.status).toBe('cancelled');
  });

  it('stops the stream when the task is redirected mid-stream, and the new goal streams anew', async () => {
    model.failNext({ tokenDelayMs: 150 });
    const thread = await start('stream redirected');
    const { stream, call } = await midStream(thread);
    await postSigned(file.events, threadMessage('U0ANN', 'redirect: a new goal entirely', thread), {
      json: true,
    });
    await until('note', () =>
      shownIn(slack, thread).find((m) => m.ts === stream.ts && /Stopped before/.test(m.content)),
    );
    await until('model call closed', () => (call?.hungUp ? call : undefined));
    await until('card', () => cardsIn(thread)[0]);
    const said = shownIn(slack, thread).filter((m) => /Answer \d+:.* end\./.test(m.content));
    // The new goal's two turns, each once; nothing of the stopped step.
    expect(said.filter((m) => !m.content.includes('"type":"actions"'))).toHaveLength(2);
  });

  it('edits a stream whose saved words differ from what streamed into the saved words (your own graph’s, saved as the run ends)', async () => {
    const text = `draft the decorated note ${++n}`;
    await postSigned(file.events, commandBody(`decorated ${text}`));
    const thread = tsOf(await until('root', () => rootOf(text)));
    const stream = await until('a stream', () => slack.streams.streams.find((s) => s.threadTs === thread));
    await until('task done', async () => ((await taskOf(thread))?.status === 'done' ? true : undefined));
    const saved = await until('saved words shown', () =>
      shownIn(slack, thread).find((m) => m.content.includes('**Draft:** Answer')),
    );
    expect(saved.content).toMatch(/end\./);
    // Shown once: in the stream's message (edited), or, when chat.update's budget was busy, posted
    // in its place (the stream's message removed).
    const words = shownIn(slack, thread).filter((m) => /Answer \d+: word0/.test(m.content));
    expect(words).toHaveLength(1);
    if (saved.ts !== stream.ts)
      expect(shownIn(slack, thread).find((m) => m.ts === stream.ts)).toBeUndefined();
  });

  it('a stream whose appends Slack answers 429 shows its last words with the stop: all the saved words, no edit, one 429', async () => {
    model.failNext({ tokenDelayMs: 100 });
    const thread = await start('stream throttled');
    const { stream } = await midStream(thread);
    const lift = slack.rateLimit('chat.appendStream', 60);
    try {
      await until('the stream stopped', () => (stream.state === 'stopped' ? stream : undefined), 20_000);
      const shown = shownIn(slack, thread).find((m) => m.ts === stream.ts);
      expect(shown?.content).toMatch(/^Answer \d+: word0 .* end\.$/);
      const stop = slack.callsOf('chat.stopStream').find((c) => c.ts === stream.ts);
      expect(String(stop?.markdown_text)).toMatch(/end\.$/);
      // Slack said 429 once: every append after it waited for the limit to pass.
      expect(slack.limited.filter((l) => l.method === 'chat.appendStream')).toHaveLength(1);
    } finally {
      lift();
    }
    await until('card', () => cardsIn(thread)[0]);
    // Handed over as it was: the saved words are what it shows, without an edit.
    expect(slack.callsOf('chat.update').filter((c) => c.ts === stream.ts)).toEqual([]);
  });

  it('a stream whose edit to the saved words Slack refuses for good is removed, and the saved words are posted once', async () => {
    const text = `draft the decorated memo ${++n}`;
    const refuse = slack.refuse(
      'chat.update',
      (a) => String(a.text ?? '').includes('Draft:'),
      'msg_too_long',
    );
    try {
      await postSigned(file.events, commandBody(`decorated ${text}`));
      const thread = tsOf(await until('root', () => rootOf(text)));
      const stream = await until('a stream', () => slack.streams.streams.find((s) => s.threadTs === thread));
      await until('task done', async () => ((await taskOf(thread))?.status === 'done' ? true : undefined));
      const saved = await until('saved words posted', () =>
        shownIn(slack, thread).find((m) => m.ts !== stream.ts && m.content.includes('**Draft:** Answer')),
      );
      expect(saved.content).toMatch(/end\./);
      expect(shownIn(slack, thread).find((m) => m.ts === stream.ts)).toBeUndefined();
      expect(shownIn(slack, thread).filter((m) => /Answer \d+: word0/.test(m.content))).toHaveLength(1);
      expect(shownIn(slack, thread).some((m) => m.content.includes('could not be shown'))).toBe(false);
    } finally {
      refuse();
    }
  });

  it('a stream whose start Slack carried out but never answered in time is removed from the thread, and the saved words are posted once', async () => {
    const text = `draft the unanswered note ${++n}`;
    // Slack makes the stream at once and answers after the client (10 s) gave up.
    slack.answerLate('chat.startStream', 11_000);
    await postSigned(file.events, commandBody(`decorated ${text}`));
    const thread = tsOf(await until('root', () => rootOf(text)));
    const orphan = await until('the stream Slack made', () =>
      slack.streams.streams.find((s) => s.threadTs === thread),
    );
    await until(
      'task done',
      async () => ((await taskOf(thread))?.status === 'done' ? true : undefined),
      30_000,
    );
    const saved = await until('saved words posted', () =>
      shownIn(slack, thread).find((m) => m.content.includes('**Draft:** Answer')),
    );
    expect(saved.ts).not.toBe(orphan.ts);
    await until('the unanswered stream removed', () =>
      shownIn(slack, thread).find((m) => m.ts === orphan.ts) ? undefined : true,
    );
    expect(shownIn(slack, thread).filter((m) => /Answer \d+: word0/.test(m.content))).toHaveLength(1);
  }, 45_000);
});
