import type { ModelFor } from './models.js';
import { ScriptedChatModel, scriptOf } from './scripted.js';

/** What a scenario file scripts for its agents: per agent, its answers in order, or one for every call. */
export type AgentScripts = Record<
  string,
  string | Record<string, unknown> | (string | Record<string, unknown>)[]
>;

/** The offline model, with each scripted agent answering what its scenario says (a scenario file's `agents`). */
export function scenarioModels(scenario: { agents: AgentScripts } = { agents: {} }): ModelFor {
  const scripts = new Map(
    Object.entries(scenario.agents).map(([agent, a]) => [agent, scriptOf(Array.isArray(a) ? a : [a])]),
  );
  return ({ name }) => new ScriptedChatModel({ agent: name, script: scripts.get(name) });
}
