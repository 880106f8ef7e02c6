/**
 * Structured answers (a goal's evaluation, a plan): a real model answers through LangChain's
 * `withStructuredOutput` (tool calling) and the result is checked by the same zod schema; the
 * offline model builds a deterministic object from the schema and the prompt.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { z } from 'zod';
import { ScriptedChatModel } from './scripted.js';

export async function askStructured<T extends z.ZodObject>(
  model: BaseChatModel,
  schema: T,
  messages: BaseMessage[],
  signal?: AbortSignal,
): Promise<z.infer<T>> {
  if (model instanceof ScriptedChatModel) return model.structured(schema, messages, signal);
  const answer = await model.withStructuredOutput(schema).invoke(messages, { signal });
  return schema.parse(answer);
}
