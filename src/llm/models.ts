/**
 * Chooses the chat model for each agent: an OpenAI-compatible server when a key is given (config
 * gives a base URL set without one a placeholder), otherwise the scripted offline model. Workflows receive `ModelFor` and never read config.
 */
import type { Callbacks } from '@langchain/core/callbacks/manager';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { Config } from '../config/config.js';
import type { AgentConfig } from '../config/workflows.js';
import { boundedFetch } from './bounded-fetch.js';
import { DeadlinedChatOpenAI } from './deadlined-chat.js';
import { onFailedAttempt } from './fail-fast.js';
import { ScriptedChatModel } from './scripted.js';

/** Returns the model an agent speaks with, given its display name and its config entry. */
export type ModelFor = (agent: { name: string; config?: AgentConfig }) => BaseChatModel;

/**
 * `callbacks`: LangChain callbacks for each agent's model calls, by its display name (the
 * terminal shows from them who is thinking).
 */
export function createModelFor(
  model: Config['model'],
  options: { callbacks?: (agent: string) => Callbacks } = {},
): ModelFor {
  if (!model.apiKey) {
    return ({ name }) =>
      new ScriptedChatModel({
        agent: name,
        delayMs: model.scriptedDelayMs,
        callbacks: options.callbacks?.(name),
      });
  }
  return ({ name, config }) =>
    new DeadlinedChatOpenAI({
      deadlineMs: model.deadlineMs,
      callbacks: options.callbacks?.(name),
      model: config?.model ?? model.name,
      apiKey: model.apiKey,
      temperature: config?.temperature,
      // Timeouts, 429, 5xx and answers outside the schema are retried with exponential backoff
      // before the step fails, all within `deadlineMs`; a refused connection or an unknown host
      // fails at once (fail-fast.ts).
      maxRetries: model.maxRetries,
      onFailedAttempt,
      timeout: model.timeoutMs,
      configuration: {
        ...(model.baseUrl ? { baseURL: model.baseUrl } : {}),
        fetch: boundedFetch({ timeoutMs: model.timeoutMs, maxBytes: model.maxAnswerBytes }),
      },
    });
}
