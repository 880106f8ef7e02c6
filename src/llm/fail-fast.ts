/**
 * Which failed model calls are tried again. LangChain retries most failures, with backoff, up to
 * OPENAI_MAX_RETRIES times (about 25 s at the most), which suits a timeout, a 5xx or a 429. A
 * refused connection (nothing listens at OPENAI_BASE_URL), a host name that does not resolve, an
 * address fetch will not call or a certificate that is not trusted will not heal in seconds:
 * retrying only keeps the person from the sentence that says what to fix, so such a call fails at
 * its first attempt.
 */
import { stampRetryable } from '@langchain/core/errors';
import { AsyncCaller, type FailedAttemptHandler } from '@langchain/core/utils/async_caller';
import { describeFailure, type FailureCode } from '../failures.js';

/** LangChain's own handler (no retry of a 4xx, an abort, an exhausted quota), kept protected by AsyncCaller. */
class DefaultHandler extends AsyncCaller {
  get handler(): FailedAttemptHandler | undefined {
    return this.onFailedAttempt;
  }
}
const langchainHandler = new DefaultHandler({}).handler;

/** Errors that say the address itself is wrong (EAI_AGAIN, a DNS server that did not answer, may pass). */
const LASTING = new Set(['ECONNREFUSED', 'ENOTFOUND']);
/** An address fetch refuses before connecting (a port such as 9, a scheme), a certificate not trusted. */
const LASTING_FAILURES = new Set<FailureCode>(['bad_address', 'untrusted']);

/** The error or what it wraps (the client's APIConnectionError → fetch's TypeError → the socket's error). */
export function isLastingRefusal(error: unknown): boolean {
  if (LASTING_FAILURES.has(describeFailure(error).code)) return true;
  let current = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && LASTING.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** For ChatOpenAI's `onFailedAttempt`: throwing ends the call's retries with that error. */
export const onFailedAttempt: FailedAttemptHandler = (error) => {
  if (isLastingRefusal(error)) throw stampRetryable(error, false);
  return langchainHandler?.(error);
};
