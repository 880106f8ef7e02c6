/**
 * The fake model server streams as a model writes (issue 22's ground), seen through the real
 * ChatOpenAI client: a plain answer a word at a time, `tokenDelayMs` apart, and a server that dies
 * mid-answer after some words (the client has those words, then the call fails).
 */
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.js';

const model = new FakeOpenAI({
  tokenDelayMs: 60,
  reply: () => 'one two three four five six seven eight',
});
let chat: ChatOpenAI;

beforeAll(async () => {
  await model.start();
  chat = new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey: 'sk-test',
    configuration: { baseURL: model.url },
    maxRetries: 0,
  });
});
afterAll(() => model.stop());

/** The streamed pieces of an answer, each with when it arrived (ms after the call began). */
async function streamed(): Promise<{ text: string; at: number }[]> {
  const began = Date.now();
  const pieces: { text: string; at: number }[] = [];
  for await (const chunk of await chat.stream('say eight words')) {
    if (typeof chunk.content === 'string' && chunk.content)
      pieces.push({ text: chunk.content, at: Date.now() - began });
  }
  return pieces;
}

describe('the fake model server, streaming', () => {
  it('sends a plain answer a word at a time, tokenDelayMs apart: the first word long before the last', async () => {
    const pieces = await streamed();
    expect(pieces.map((p) => p.text).join('')).toBe('one two three four five six seven eight');
    expect(pieces).toHaveLength(8);
    const first = pieces[0]?.at ?? 0;
    const last = pieces.at(-1)?.at ?? 0;
    // Seven gaps of 60 ms between the first word and the last.
    expect(last - first).toBeGreaterThanOrEqual(7 * 60 - 20);
    expect(model.calls.at(-1)).toMatchObject({ stream: true, tokensSent: 8 });
  });

  it('dies mid-answer when told: the words sent before reach the client, then the call fails', async () => {
    model.failNext({ cutAfterTokens: 3 });
    const pieces: string[] = [];
    const read = async () => {
      for await (const chunk of await chat.stream('say eight words'))
        if (typeof chunk.content === 'string' && chunk.content) pieces.push(chunk.content);
    };
    await expect(read()).rejects.toThrow();
    expect(pieces.join('')).toBe('one two three ');
    expect(model.calls.at(-1)?.tokensSent).toBe(3);
  });
});

describe('the fake model server, numbering its calls', () => {
  // The chaos checker tells whose words a reply shows by the `[call N]` its answer opens with
  // (bench/chaos/answers.ts): two calls must never answer with the same number.
  const numbered = new FakeOpenAI({ reply: (_, n) => `[call ${n}] words` });
  beforeAll(() => numbered.start());
  afterAll(() => numbered.stop());

  it('numbers a slowed call by its arrival, not by the calls that came while it waited', async () => {
    const client = new ChatOpenAI({
      model: 'gpt-4o-mini',
      apiKey: 'sk-test',
      configuration: { baseURL: numbered.url },
      maxRetries: 0,
    });
    numbered.failNext({ delayMs: 600 });
    const slowed = client.invoke('first, slowed');
    // Arrives while the first waits, and is answered at once.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const quick = await client.invoke('second');
    expect([(await slowed).content, quick.content]).toEqual(['[call 1] words', '[call 2] words']);
  });
});
