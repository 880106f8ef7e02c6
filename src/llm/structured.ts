/**
 * Structured answers (a routing, a verdict, a plan): every model answers through LangChain's
 * `withStructuredOutput` (the schema bound as a tool, its call's arguments read back), and the
 * result is checked by the same zod schema. The offline model takes that path too. An answer
 * outside the schema (a value not in an enum, say) is asked for once more; a second miss is the
 * step's failure, which a person sees with Retry.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { z } from 'zod';
import { describeFailure } from '../failures.js';

const ATTEMPTS = 2;

export async function askStructured<T extends z.ZodObject>(
  model: BaseChatModel,
  schema: T,
  messages: BaseMessage[],
  signal?: AbortSignal,
): Promise<z.infer<T>> {
  for (let attempt = 1; ; attempt++) {
    try {
      // Not streamed to people: its words are a tool call's arguments, not an agent's message.
      const answer = await model
        .withStructuredOutput(schema)
        .invoke(messages, { signal, tags: ['nostream'] });
      return schema.parse(answer);
    } catch (error) {
      if (attempt >= ATTEMPTS || signal?.aborted || describeFailure(error).code !== 'bad_answer') throw error;
    }
  }
}
