import { describe, expect, it } from 'vitest';
import { isLastingRefusal, onFailedAttempt } from '../../src/llm/fail-fast.js';

/** As the OpenAI client throws it: APIConnectionError → fetch's TypeError → the socket's error. */
const connectionError = (code: string) => {
  const socket = Object.assign(new Error(`getaddrinfo ${code} model.example`), { code });
  const fetchFailed = new TypeError('fetch failed', { cause: socket });
  return Object.assign(new Error('Connection error.', { cause: fetchFailed }), {
    name: 'APIConnectionError',
  });
};
const withStatus = (status: number) => Object.assign(new Error(`${status} status code`), { status });

describe('which failed model calls are not tried again', () => {
  it('a refused connection and a host name that does not resolve end the retries at once', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND']) {
      expect(isLastingRefusal(connectionError(code))).toBe(true);
      expect(() => onFailedAttempt(connectionError(code))).toThrow('Connection error.');
    }
  });

  it('an address fetch will not call (a port such as 9) and a certificate that is not trusted end them too', () => {
    const badPort = Object.assign(
      new Error('Connection error.', {
        cause: new TypeError('fetch failed', { cause: new Error('bad port') }),
      }),
      { name: 'APIConnectionError' },
    );
    const certificate = Object.assign(
      new Error('Connection error.', {
        cause: new TypeError('fetch failed', {
          cause: Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
        }),
      }),
      { name: 'APIConnectionError' },
    );
    for (const error of [badPort, certificate]) {
      expect(isLastingRefusal(error)).toBe(true);
      expect(() => onFailedAttempt(error)).toThrow('Connection error.');
    }
  });

  it('a reset, a DNS server that did not answer, a timeout and a 5xx are tried again', () => {
    for (const error of [
      connectionError('ECONNRESET'),
      connectionError('EAI_AGAIN'),
      connectionError('ETIMEDOUT'),
      withStatus(503),
    ]) {
      expect(isLastingRefusal(error)).toBe(false);
      expect(() => onFailedAttempt(error)).not.toThrow();
    }
  });

  it("LangChain's own refusals stand: a 400 or a 401 is not tried again", () => {
    expect(() => onFailedAttempt(withStatus(400))).toThrow('400');
    expect(() => onFailedAttempt(withStatus(401))).toThrow('401');
  });
});
