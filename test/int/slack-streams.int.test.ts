/**
 * Agents' words streamed into the thread as the model writes them (issue 22), end to end: a
 * signed /signoff through Bolt's HTTP receiver, the real ChatOpenAI client against the fake model
 * server writing a word every TOKEN_MS, and the fake Slack's streams (strict as Slack's reference).
 * What was shown is what is saved once the step is: each stream's message becomes its agent's
 * message, and the words are never posted a second time.
 */
import { describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { commandBody, postSigned } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
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
`;
const file = slackPerFile('slack_streams', { model, yaml: YAML });
const { slack } = file;
const { posts, rootOf, tsOf, cardsIn, updatesOf } = slackThreads(slack);

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
    for (const s of streams) {
      expect(s.state).toBe('stopped');
      const finals = updatesOf(s.ts);
      const shown = JSON.stringify(finals.at(-1)?.blocks);
      expect(shown).toMatch(/Answer \d+: word0 .* end\./);
    }
    const starts = slack.callsOf('chat.startStream').filter((c) => c.thread_ts === thread && !c.failed);
    expect(starts.map((c) => c.username).sort()).toEqual(['Author', 'Reviewer']);
    // No post in the thread repeats an agent's words.
    const repeated = posts().filter((p) => p.thread_ts === thread && /Answer \d+:/.test(JSON.stringify(p)));
    expect(repeated).toEqual([]);
  });
});
