/** The fake OpenAI server refuses what OpenAI refuses, so a test that passes through it sent valid requests. */
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../helpers/fake-openai.js';
import { invalidRequest } from '../helpers/openai-requests.js';

const ok: ChatRequest = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

describe('requests OpenAI would refuse', () => {
  it('accepts a plain request, a tool round trip and a strict schema', () => {
    expect(invalidRequest(ok)).toBeUndefined();
    const roundTrip = {
      ...ok,
      messages: [
        { role: 'user', content: 'send it' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1' }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sent' },
      ],
    } as ChatRequest;
    expect(invalidRequest(roundTrip)).toBeUndefined();
    const strict = {
      ...ok,
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'verdict',
          strict: true,
          schema: {
            type: 'object',
            properties: { v: { type: 'string' } },
            required: ['v'],
            additionalProperties: false,
          },
        },
      },
    } as ChatRequest;
    expect(invalidRequest(strict)).toBeUndefined();
  });

  it('refuses no model, no messages, unknown roles, orphan tool results, bad tool names and loose strict schemas', () => {
    expect(invalidRequest({ ...ok, model: '' })).toContain('model');
    expect(invalidRequest({ ...ok, messages: [] })).toContain('too short');
    expect(invalidRequest({ ...ok, messages: [{ role: 'robot', content: 'x' }] })).toContain("'robot'");
    expect(
      invalidRequest({ ...ok, messages: [{ role: 'tool', tool_call_id: 'call_9', content: 'x' }] }),
    ).toContain("role 'tool' must be a response");
    expect(
      invalidRequest({ ...ok, tools: [{ type: 'function', function: { name: 'send email' } }] }),
    ).toContain('send email');
    const loose = {
      ...ok,
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'x',
          strict: true,
          schema: {
            type: 'object',
            properties: { a: {}, b: {} },
            required: ['a'],
            additionalProperties: false,
          },
        },
      },
    } as ChatRequest;
    expect(invalidRequest(loose)).toContain("Missing 'b'");
  });
});
