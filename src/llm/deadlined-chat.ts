/**
 * ChatOpenAI with one deadline for a whole call. The client's timeout (and bounded-fetch.ts) stop
 * each attempt, but LangChain retries a timed-out attempt, with backoff, up to maxRetries times:
 * alone, a step could wait (maxRetries + 1) × timeout. Every call of the model (invoke, tools,
 * structured output) goes through `generate`, so the deadline is set there.
 */
import type { BaseMessageLike } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
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
   * plain ChatOpenAI from the same fields: made here as this class, so the deadline holds there too.
   */
  override withConfig(config: Partial<this['ParsedCallOptions']>): this {
    const bound = new DeadlinedChatOpenAI({ ...this.fields, deadlineMs: this.deadlineMs });
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
}
