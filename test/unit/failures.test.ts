import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isConnectionError } from '../../src/db/queryable.js';
import {
  atTheKeyboard,
  describeFailure,
  FAILURE_CODES,
  FAILURE_SENTENCES,
  FAILURE_SENTENCES_AT_THE_KEYBOARD,
  modelAddress,
} from '../../src/failures.js';
import { AnswerTooLargeError, ModelDeadlineError } from '../../src/llm/bounded-fetch.js';

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

/** What the OpenAI client throws when fetch got no answer: its class names it, its `name` does not. */
class APIConnectionError extends Error {
  constructor(cause: unknown) {
    super('Connection error.', { cause });
  }
}
/** undici's refusal: `TypeError: fetch failed`, the reason in its cause. */
const fetchFailed = (cause: Error) => new APIConnectionError(new TypeError('fetch failed', { cause }));

describe('a model service fetch cannot call', () => {
  it('a port fetch refuses, a scheme that is not http(s), a URL it cannot parse: the address is wrong, and the sentence names OPENAI_BASE_URL', () => {
    const invalidUrl = new TypeError('Failed to parse URL from http://[::1/chat/completions', {
      cause: withFields('Invalid URL', { code: 'ERR_INVALID_URL' }),
    });
    for (const error of [
      fetchFailed(new Error('bad port')),
      fetchFailed(new Error('unknown scheme')),
      new APIConnectionError(invalidUrl),
    ]) {
      const failure = describeFailure(error);
      expect(failure.code).toBe('bad_address');
      expect(failure.sentence).toContain('OPENAI_BASE_URL');
      expect(failure.sentence).toMatch(/Retry/);
    }
  });

  it('a certificate that is not trusted says so; refused connections and unknown hosts are unreachable, naming OPENAI_BASE_URL', () => {
    const cases: [Error, string][] = [
      [
        fetchFailed(withFields('self-signed certificate', { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' })),
        'untrusted',
      ],
      [fetchFailed(withFields('certificate has expired', { code: 'CERT_HAS_EXPIRED' })), 'untrusted'],
      [fetchFailed(withFields('connect ECONNREFUSED 127.0.0.1:8', { code: 'ECONNREFUSED' })), 'unreachable'],
      [fetchFailed(withFields('getaddrinfo ENOTFOUND llm.internal', { code: 'ENOTFOUND' })), 'unreachable'],
      [fetchFailed(withFields('getaddrinfo EAI_AGAIN llm.internal', { code: 'EAI_AGAIN' })), 'unreachable'],
      // No reason given at all: still no answer from the service, not an unexpected error.
      [fetchFailed(new Error('other side closed')), 'unreachable'],
      [new APIConnectionError(undefined), 'unreachable'],
    ];
    for (const [error, code] of cases) {
      const failure = describeFailure(error);
      expect([failure.code, failure.sentence]).toEqual([code, expect.stringContaining('OPENAI_BASE_URL')]);
      expect(failure.sentence).not.toContain('llm.internal');
    }
  });
});

describe('a model service that gives no answer', () => {
  const refused = fetchFailed(withFields('connect ECONNREFUSED 10.0.3.7:8', { code: 'ECONNREFUSED' }));
  const noHost = fetchFailed(withFields('getaddrinfo ENOTFOUND llm.internal', { code: 'ENOTFOUND' }));
  const badPort = fetchFailed(new Error('bad port'));

  it("the team's sentence says the cause in plain words, never the address", () => {
    expect(describeFailure(refused).sentence).toBe(
      'The model service could not be reached (connection refused: nothing listens there). Retry when it recovers; if it keeps failing, ask whoever runs signoff to check OPENAI_BASE_URL.',
    );
    expect(describeFailure(noHost).sentence).toContain('(no such host: its host name is not known)');
    expect(describeFailure(badPort).sentence).toContain('its port is one web clients never call');
    for (const error of [refused, noHost, badPort])
      expect(describeFailure(error).sentence).not.toMatch(/10\.0\.3\.7|llm\.internal/);
  });

  it('the keyboard names the address it was given, the cause, and what to fix before Retry', () => {
    expect(atTheKeyboard(describeFailure(refused).sentence, 'localhost:11434')).toBe(
      'The model service at localhost:11434 could not be reached (connection refused: nothing listens there). Retry once a model service runs at localhost:11434, or OPENAI_BASE_URL names the address where one does.',
    );
    const typo = atTheKeyboard(describeFailure(noHost).sentence, 'llm.internl:443');
    expect(typo).toBe(
      'The model service at llm.internl:443 could not be reached (no such host: its host name is not known). Retry once the host name in OPENAI_BASE_URL is right (a typo?).',
    );
    // OpenAI's own address (OPENAI_BASE_URL unset) is no typo: the machine cannot look it up.
    expect(atTheKeyboard(describeFailure(noHost).sentence, 'api.openai.com:443')).toBe(
      'The model service at api.openai.com:443 could not be reached (no such host: its host name is not known). Retry once this machine can look up api.openai.com (is it online? does its DNS answer?).',
    );
    expect(atTheKeyboard(describeFailure(badPort).sentence, '127.0.0.1:9')).toMatch(
      /^The model service's address 127\.0\.0\.1:9 cannot be used: web clients never call that port/,
    );
    // Said without the address first (a card's body), named when the terminal prints it.
    const once = atTheKeyboard(describeFailure(refused).sentence);
    expect(once).toBe(
      "The model service could not be reached (connection refused: nothing listens there). Check that a model service answers at the address the task used (OPENAI_BASE_URL as it was set then, or OpenAI's api.openai.com if it was not; it may differ from this terminal's), then Retry.",
    );
    expect(atTheKeyboard(once, '127.0.0.1:1234')).toBe(
      atTheKeyboard(describeFailure(refused).sentence, '127.0.0.1:1234'),
    );
  });

  it('the address is host and port only: no user, password, path or query', () => {
    expect(modelAddress({ apiKey: 'k', baseUrl: 'https://me:secret@llm.corp/v1?key=abc' })).toBe(
      'llm.corp:443',
    );
    expect(modelAddress({ apiKey: 'k', baseUrl: 'http://127.0.0.1:11434/v1' })).toBe('127.0.0.1:11434');
    expect(modelAddress({ apiKey: 'k' })).toBe('api.openai.com:443');
    expect(modelAddress({})).toBeUndefined();
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

describe('the sentences for the person at the keyboard (the terminal)', () => {
  it('tell them what to set or fix instead of whom to ask; where a sentence asks nobody, it is the same', () => {
    for (const code of FAILURE_CODES) {
      const team = FAILURE_SENTENCES[code];
      const own = FAILURE_SENTENCES_AT_THE_KEYBOARD[code];
      expect(own).not.toMatch(/whoever runs/i);
      expect(own).toMatch(/Retry/);
      if (!team.includes('whoever runs signoff')) expect(own).toBe(team);
      // What the team's sentence names to check, the keyboard's names too.
      for (const name of team.match(/[A-Z][A-Z_]{4,}/g) ?? []) expect(own).toContain(name);
    }
    expect(FAILURE_SENTENCES_AT_THE_KEYBOARD.internal).toContain('signoff.log in the data folder');
  });

  it('atTheKeyboard rephrases each sentence wherever it stands (a reason, a card body), and leaves other text alone', () => {
    const body = `*Planner*\n\n${FAILURE_SENTENCES.unreachable}\n\nRetry?`;
    expect(atTheKeyboard(body)).toBe(
      `*Planner*\n\n${FAILURE_SENTENCES_AT_THE_KEYBOARD.unreachable}\n\nRetry?`,
    );
    expect(atTheKeyboard(FAILURE_SENTENCES.auth)).toBe(FAILURE_SENTENCES_AT_THE_KEYBOARD.auth);
    expect(atTheKeyboard('ask whoever runs signoff for coffee')).toBe('ask whoever runs signoff for coffee');
  });
});
