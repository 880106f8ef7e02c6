import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { WorkflowDeps } from './types.js';

export interface Agent {
  name: string;
  prompt: string;
  model: BaseChatModel;
}

/**
 * An agent of a workflow: its name and prompt from the config file's `agents.<key>` when given,
 * else the workflow's defaults, and the model chosen for it.
 */
export function agentFor(deps: WorkflowDeps, key: string, defaults: { name: string; prompt: string }): Agent {
  const config = deps.settings.agents[key];
  const name = config?.name ?? defaults.name;
  return { name, prompt: config?.prompt ?? defaults.prompt, model: deps.modelFor({ name, config }) };
}
