/**
 * A model address that refuses the connection fails its call at the first attempt, through the
 * real ChatOpenAI client: nothing listens there, and retrying for OPENAI_MAX_RETRIES rounds of
 * backoff (about 25 s) only keeps the person from the sentence that says what to fix. A server
 * that answers with a 5xx or a 429 is still retried. Connection attempts are counted where Node's
 * fetch makes them (undici's diagnostics channel), since a closed port has no server to count them.
 * An address fetch will not call at all (a port such as 9) fails at its first attempt too.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { HumanMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config/config.js';
import { describeFailure } from '../../src/failures.js';
import { createModelFor } from '../../src/llm/models.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { unusedPort } from '../helpers/ports.js';

const server = new FakeOpenAI();
beforeAll(() => server.start());
afterAll(() => server.stop());

/** Four retries, as many as OPENAI_MAX_RETRIES allows: without failing fast, five attempts. */
const chat = (baseUrl: string) =>
  createModelFor(
    loadConfig({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: baseUrl,
      OPENAI_MAX_RETRIES: '4',
    }).model,
  )({ name: 'Writer' });

/** Connections tried to 127.0.0.1:`port` while `call` runs, and how the call failed. */
async function connectionsTo(port: number, call: () => Promise<unknown>) {
  let refused = 0;
  const count = (message: unknown) => {
    const { connectParams } = message as { connectParams?: { hostname?: string; port?: string | number } };
    if (String(connectParams?.port) === String(port)) refused++;
  };
  subscribe('undici:client:connectError', count);
  try {
    const error = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    return { refused, failure: error === undefined ? undefined : describeFailure(error) };
  } finally {
    unsubscribe('undici:client:connectError', count);
  }
}

describe('a model address that refuses the connection', () => {
  it('fails a plain call at its first attempt, with the sentence that says it could not be reached', async () => {
    const port = await unusedPort();
    const model = chat(`http://127.0.0.1:${port}/v1`);
    const r = await connectionsTo(port, () => model.invoke([new HumanMessage('draft the launch email')]));
    expect(r.failure).toEqual({
      code: 'unreachable',
      sentence: expect.stringMatching(/^The model service could not be reached \(connection refused: /),
    });
    expect(r.refused).toBe(1);
  });

  it('fails a structured-output call at its first attempt too', async () => {
    const port = await unusedPort();
    const model = chat(`http://127.0.0.1:${port}/v1`).withStructuredOutput(z.object({ next: z.string() }));
    const r = await connectionsTo(port, () => model.invoke([new HumanMessage('route the task')]));
    expect(r.failure?.code).toBe('unreachable');
    expect(r.refused).toBe(1);
  });
});

describe('a model address fetch will not call', () => {
  it('(port 9) fails at its first attempt, with the sentence that says the address cannot be used', async () => {
    // Fetch refuses the port before any connection, so nothing reaches undici's channels: the
    // real fetch is counted instead (the model's fetch is made from the global one, at creation).
    const real = globalThis.fetch;
    let attempts = 0;
    globalThis.fetch = (...args: Parameters<typeof fetch>) => {
      attempts++;
      return real(...args);
    };
    let model: ReturnType<typeof chat>;
    try {
      model = chat('http://127.0.0.1:9/v1');
    } finally {
      globalThis.fetch = real;
    }
    const error = await model.invoke([new HumanMessage('draft the launch email')]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(describeFailure(error).code).toBe('bad_address');
    expect(attempts).toBe(1);
  });
});

describe('a model service that answers with an error', () => {
  it('is still retried: a 503 twice, then the answer', async () => {
    server.failNext({ status: 503 }, 2);
    const before = server.calls.length;
    const answer = await chat(server.url).invoke([new HumanMessage('draft the launch email')]);
    expect(answer.content).toBeTruthy();
    expect(server.calls.slice(before).map((c) => c.answered)).toEqual([503, 503, 'content']);
  }, 30_000);
});
