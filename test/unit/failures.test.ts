import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isConnectionError } from '../../src/db/queryable.js';
import { AnswerTooLargeError, ModelDeadlineError } from '../../src/llm/bounded-fetch.js';
import { describeFailure } from '../../src/llm/failures.js';

const withFields = (message: string, fields: Record<string, unknown>) =>
  Object.assign(new Error(message), fields);

describe('what a failed step tells people', () => {
  it('names the kind of failure and never repeats the error text', () => {
    const cases: [unknown, string][] = [
      [
        withFields('429 Rate limit reached for org-123', { status: 429, code: 'rate_limit_exceeded' }),
        'rate_limit',
      ],
      [
        withFields('429 You exceeded your current quota', { status: 429, code: 'insufficient_quota' }),
        'quota',
      ],
      [withFields('401 Incorrect API key provided: sk-****abcd', { status: 401 }), 'auth'],
      [withFields('404 The model gpt-9 does not exist', { status: 404 }), 'model_not_found'],
      [withFields('503 upstream 10.0.3.7 overloaded', { status: 503 }), 'server_error'],
      [withFields('Request timed out.', { name: 'TimeoutError' }), 'timeout'],
      [withFields('connect ECONNREFUSED 10.0.3.7:443', { code: 'ECONNREFUSED' }), 'unreachable'],
      [withFields('too long', { name: 'ContextOverflowError' }), 'too_long'],
      [withFields('[{"code":"invalid_value"}]', { name: '$ZodError', issues: [] }), 'bad_answer'],
      [new AnswerTooLargeError("the model's answer passed 16777216 bytes"), 'bad_answer'],
      [new ModelDeadlineError('the model call timed out after 120000 ms'), 'timeout'],
      [withFields('relation "x" does not exist', { severity: 'ERROR', code: '42P01' }), 'database'],
      [new Error('wrapped', { cause: withFields('401 sk-****', { status: 401 }) }), 'auth'],
      [new TypeError('Cannot read properties of undefined (reading "x")'), 'internal'],
      ['a thrown string', 'internal'],
    ];
    for (const [error, code] of cases) {
      const failure = describeFailure(error);
      expect(failure.code).toBe(code);
      const text = error instanceof Error ? error.message : String(error);
      expect(failure.sentence).not.toContain(text.slice(0, 12));
      expect(failure.sentence).toMatch(/Retry/);
    }
  });
});

describe('errors a step can end with', () => {
  it('a timeout with a numeric code (a DOMException) is a timeout, not a connection error, and does not throw', () => {
    const aborted = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    const pool = new pg.Pool({ connectionString: 'postgres://u:p@127.0.0.1:5432/db' });
    expect(() => isConnectionError(aborted, pool)).not.toThrow();
    expect(isConnectionError(aborted, pool)).toBe(false);
    expect(describeFailure(aborted).code).toBe('timeout');
  });
});
