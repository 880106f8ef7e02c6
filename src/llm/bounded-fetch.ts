/**
 * The fetch the OpenAI client is given: one deadline from the request to the answer's last byte,
 * and a cap on the answer's size. The client's own `timeout` stops at the headers, so a server
 * (or a proxy) that sends them and then trickles its body would hold a step, and its task, for
 * ever; and a body without end would be held in memory to its end.
 */

/** The deadline passed: the call failed as timed out (and is retried like any timeout). */
export class ModelDeadlineError extends Error {
  override name = 'TimeoutError';
}

/** An answer past the cap: the call fails (and is retried) as one whose answer cannot be used. */
export class AnswerTooLargeError extends Error {
  override name = 'AnswerTooLargeError';
}

export function boundedFetch(
  limits: { timeoutMs: number; maxBytes: number },
  inner: typeof fetch = fetch,
): typeof fetch {
  return async (input, init) => {
    // The caller's own abort (a redirect, a cancel) still stops the call as an abort.
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new ModelDeadlineError(`the model call timed out after ${limits.timeoutMs} ms`)),
      limits.timeoutMs,
    );
    timer.unref();
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal;
    let response: Response;
    try {
      response = await inner(input, { ...init, signal });
    } catch (error) {
      clearTimeout(timer);
      throw error;
    }
    if (!response.body) {
      clearTimeout(timer);
      return response;
    }
    let read = 0;
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>(
        {
          transform(chunk, controller) {
            read += chunk.byteLength;
            if (read > limits.maxBytes) {
              clearTimeout(timer);
              throw new AnswerTooLargeError(`the model's answer passed ${limits.maxBytes} bytes`);
            }
            controller.enqueue(chunk);
          },
          flush() {
            clearTimeout(timer);
          },
        },
        undefined,
        // Read ahead of the reader, up to the cap: a streamed answer's parser takes its events one
        // at a time, and an answer past the cap is seen as soon as it arrives, not once parsed.
        new ByteLengthQueuingStrategy({ highWaterMark: limits.maxBytes }),
      ),
    );
    return new Response(capped, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
