/**
 * ChatOpenAI with one deadline for a whole call. The client's timeout (and bounded-fetch.ts) stop
 * each attempt, but LangChain retries a timed-out attempt, with backoff, up to maxRetries times:
 * alone, a step could wait (maxRetries + 1) × timeout. Every call of the model (invoke, tools,
 * structured output) goes through `generate`, so the deadline is set there.
 */
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import type { AIMessageChunk, BaseMessage, BaseMessageLike } from '@langchain/core/messages';
import type { ChatGenerationChunk, LLMResult } from '@langchain/core/outputs';
import { ChatOpenAI, type ChatOpenAIFields } from '@langchain/openai';
import { ModelDeadlineError } from './bounded-fetch.js';

export class DeadlinedChatOpenAI extends ChatOpenAI {
  private readonly deadlineMs: number;

  constructor(fields: ChatOpenAIFields & { deadlineMs: number }) {
    const { deadlineMs, ...rest } = fields;
    super(rest);
    this.deadlineMs = deadlineMs;
  }

  /**
   * Tools and structured output bind their options with `withConfig`, which in ChatOpenAI makes a
   * plain ChatOpenAI from the same fields: made here as this class, so the deadline holds there
   * too, with the callbacks and metadata the model carries now (given it after it was made: what
   * counts its usage, whose words it streams), not those it was made with.
   */
  override withConfig(config: Partial<this['ParsedCallOptions']>): this {
    const bound = new DeadlinedChatOpenAI({
      ...this.fields,
      callbacks: this.callbacks,
      metadata: this.metadata,
      deadlineMs: this.deadlineMs,
    });
    bound.defaultOptions = { ...this.defaultOptions, ...config };
    return bound as this;
  }

  override async generate(
    messages: BaseMessageLike[][],
    options?: string[] | this['ParsedCallOptions'],
    callbacks?: Parameters<ChatOpenAI['generate']>[2],
  ): Promise<LLMResult> {
    const parsed = Array.isArray(options) ? ({ stop: options } as this['ParsedCallOptions']) : options;
    // The attempt in flight is hung up on (the caller's own abort still stops it too), and the
    // call fails as timed out, whatever the client makes of the abort.
    const deadline = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new ModelDeadlineError(
          `the model call, its retries included, took over ${this.deadlineMs} ms`,
        );
        deadline.abort(error);
        reject(error);
      }, this.deadlineMs);
      timer.unref();
    });
    const signal = parsed?.signal ? AbortSignal.any([parsed.signal, deadline.signal]) : deadline.signal;
    try {
      return await Promise.race([
        super.generate(messages, { ...parsed, signal } as this['ParsedCallOptions'], callbacks),
        expired,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A streamed call (LangGraph's `messages` mode makes every call stream, for the words shown as
   * they are written) is retried by the client only while it opens: a server that answers 200
   * and then fails before any word (trickles past the deadline, sends too much, dies) would fail
   * the step at its first attempt. Here an attempt that ends before its first word is tried again
   * under the policy of every failed call (backoff, onFailedAttempt, maxRetries); once a word is
   * out, a failure is the step's (a person may have seen it).
   */
  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const attempt = { ...options, maxRetries: 0 } as this['ParsedCallOptions'];
    const opened = await this.caller.call(async () => {
      const chunks = super._streamResponseChunks(messages, attempt, runManager)[Symbol.asyncIterator]();
      const before: ChatGenerationChunk[] = [];
      for (;;) {
        const next = await chunks.next();
        if (next.done) return { chunks, before, done: true };
        before.push(next.value);
        if (speaks(next.value)) return { chunks, before, done: false };
      }
    });
    yield* opened.before;
    if (opened.done) return;
    for (let next = await opened.chunks.next(); !next.done; next = await opened.chunks.next())
      yield next.value;
  }
}

/** Whether a streamed piece carries the answer: words, or a tool call's. */
const speaks = (chunk: ChatGenerationChunk) =>
  chunk.text.length > 0 || ((chunk.message as AIMessageChunk).tool_call_chunks?.length ?? 0) > 0;
