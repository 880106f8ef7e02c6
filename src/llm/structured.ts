/**
 * Structured answers (a goal's evaluation, a plan): every model answers through LangChain's
 * `withStructuredOutput` (the schema bound as a tool, its call's arguments read back), and the
 * result is checked by the same zod schema. The offline model takes that path too.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { z } from 'zod';

export async function askStructured<T extends z.ZodObject>(
  model: BaseChatModel,
  schema: T,
  messages: BaseMessage[],
  signal?: AbortSignal,
): Promise<z.infer<T>> {
  const answer = await model.withStructuredOutput(schema).invoke(messages, { signal });
  return schema.parse(answer);
}
