/**
 * One deadline for a whole model call: each attempt stops at OPENAI_TIMEOUT_SECONDS, and the
 * client retries a timed-out attempt with backoff; OPENAI_DEADLINE_SECONDS ends the whole call,
 * its retries included, as a timeout. Real ChatOpenAI against the fake OpenAI server.
 */
import { HumanMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config/config.js';
import { describeFailure } from '../../src/failures.js';
import { createModelFor } from '../../src/llm/models.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';

const model = new FakeOpenAI();
beforeAll(() => model.start());
afterAll(() => model.stop());

/** A model whose attempts time out after 1 s, retried 3 times, within one 2-second deadline. */
const chat = () =>
  createModelFor(
    loadConfig({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.url,
      OPENAI_MAX_RETRIES: '3',
      OPENAI_TIMEOUT_SECONDS: '1',
      OPENAI_DEADLINE_SECONDS: '2',
    }).model,
  )({ name: 'Writer' });

/** How a call ends: its failure's code, after how long, after how many attempts. */
async function fails(call: () => Promise<unknown>) {
  const before = model.calls.length;
  const started = Date.now();
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  return {
    code: error === undefined ? 'answered' : describeFailure(error).code,
    ms: Date.now() - started,
    attempts: model.calls.length - before,
  };
}

describe('the deadline of a whole model call', () => {
  it('a server that trickles its body after the headers: the call, retries included, ends at the deadline as a timeout', async () => {
    model.failNext({ trickleMs: 200 }, 4);
    const ended = await fails(() => chat().invoke([new HumanMessage('plan the retro')]));
    model.clearFaults();
    expect(ended.code).toBe('timeout');
    // Four attempts of 1 s each, and the waits between them, would take well over 4 s.
    expect(ended.ms).toBeGreaterThanOrEqual(1900);
    expect(ended.ms).toBeLessThan(3000);
    expect(ended.attempts).toBeLessThanOrEqual(2);
  });

  it('a slow server, with structured output: the same deadline', async () => {
    model.failNext({ delayMs: 1500 }, 4);
    const shaped = chat().withStructuredOutput(z.object({ summary: z.string() }));
    const ended = await fails(() => shaped.invoke([new HumanMessage('sum up the retro')]));
    model.clearFaults();
    expect(ended.code).toBe('timeout');
    expect(ended.ms).toBeLessThan(3000);
  });

  it('an answer within the deadline is the answer', async () => {
    const ended = await fails(() => chat().invoke([new HumanMessage('plan the retro')]));
    expect(ended.code).toBe('answered');
  });
});
