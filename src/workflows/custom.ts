/**
 * Bring your own graph: a workflow in the config file may name a module exporting
 * `createGraph({ model, modelFor, checkpointer })` (or a default export of the same) that returns
 * a compiled LangGraph graph. Its interrupts may be signoff's review requests or the standard
 * shapes (see workflows/protocol/standard-interrupts.ts). Its input is the task as a user message, unless the
 * module exports `input(task)`.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import type { WorkflowConfig } from '../config/workflows.js';
import { SignoffError } from '../errors.js';
import type { ModelFor } from '../llm/models.js';
import { ownWorkflowDescription } from './catalog.js';
import { goalOf } from './shared/goal.js';
import type { Said } from './shared/say.js';
import type { RunnableGraph, WorkflowDefinition } from './shared/types.js';

export interface GraphFactoryDeps {
  /** The model signoff chose for this workflow (agent "agent" in its config, else the default). */
  model: BaseChatModel;
  modelFor: ModelFor;
  checkpointer: BaseCheckpointSaver;
}

interface CustomModule {
  createGraph?: (deps: GraphFactoryDeps) => RunnableGraph;
  default?: (deps: GraphFactoryDeps) => RunnableGraph;
  input?: (task: { text: string; requester: string }) => Record<string, unknown>;
}

export async function loadCustomWorkflow(
  name: string,
  settings: WorkflowConfig,
  configPath: string | undefined,
): Promise<WorkflowDefinition> {
  const folder = configPath ? dirname(configPath) : process.cwd();
  const file = resolve(folder, settings.module as string);
  if (!existsSync(file)) {
    throw new SignoffError('config_invalid', `workflows.${name}.module: ${notFound(file, folder, settings)}`);
  }
  let mod: CustomModule;
  try {
    mod = (await import(pathToFileURL(file).href)) as CustomModule;
  } catch (cause) {
    throw new SignoffError(
      'config_invalid',
      `workflows.${name}.module: cannot load ${file}: ${(cause as Error).message}`,
      { cause },
    );
  }
  const factory = mod.createGraph ?? mod.default;
  if (typeof factory !== 'function') {
    throw new SignoffError(
      'config_invalid',
      `workflows.${name}.module: ${file} exports no createGraph function`,
    );
  }
  return {
    name,
    description: ownWorkflowDescription(name, settings),
    build: (deps) =>
      speaking(
        factory({
          model: deps.modelFor({ name: settings.agents.agent?.name ?? name, config: settings.agents.agent }),
          modelFor: deps.modelFor,
          checkpointer: deps.checkpointer,
        }),
        name,
      ),
    input: mod.input ?? ((task) => ({ messages: [{ role: 'user', content: goalOf(task) }] })),
    // An agent's loop runs many steps between reviews: keep each one.
    durability: 'async',
    outcome: () => ({ status: 'done' }),
  };
}

/**
 * A module that is not where the path leads. Paths are read from the config file's folder, not
 * from where signoff was started: the usual slip is a path written from the project's folder for
 * a config file kept elsewhere, so when the path leads to a file from there, the sentence says
 * how to write it.
 */
function notFound(file: string, folder: string, settings: WorkflowConfig): string {
  const said = `cannot load ${file}: there is no such file (module paths are relative to the config file's folder, ${folder})`;
  const fromHere = resolve(process.cwd(), settings.module as string);
  if (fromHere === file || !existsSync(fromHere)) return said;
  const written = relative(folder, fromHere);
  return `${said}; to load ${fromHere}, write module: ${written.startsWith('.') ? written : `./${written}`}`;
}

/**
 * Your own graph speaks the way ours do, through LangGraph's custom stream: it does not call
 * `say`, so what its nodes' updates add to `messages` is written there for it, right after each
 * update, and the runner records it like any agent's words (once the step is saved).
 */
export function speaking(graph: RunnableGraph, workflow: string): RunnableGraph {
  return {
    invoke: (input, config) => graph.invoke(input, config),
    getState: (config) => graph.getState(config),
    // Its nodes are the task's steps, as ours are.
    getGraph: graph.getGraph?.bind(graph),
    async stream(input, config) {
      const chunks = await graph.stream(input, config);
      return (async function* () {
        for await (const chunk of chunks) {
          yield chunk;
          const [mode, update] = chunk as [string, Record<string, unknown>];
          if (mode !== 'updates') continue;
          for (const [node, u] of Object.entries(update)) {
            for (const m of announceMessages(workflow, node, u)) {
              const said: Said = { type: 'signoff_said', key: m.key, node, agent: m.agent, text: m.text };
              yield ['custom', said];
            }
          }
        }
      })();
    },
  };
}

/**
 * What a graph of messages says, for the thread: the AI's text answers and the tools' results
 * (tool calls themselves are shown on review cards). Keyed by message id, else by content.
 */
export function announceMessages(
  workflow: string,
  node: string,
  update: unknown,
): { key: string; agent: string; text: string }[] {
  const messages = (update as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return [];
  return messages.flatMap((m) => {
    const msg = m as { id?: string; content?: unknown; name?: string; getType?: () => string; type?: string };
    const type = msg.getType?.() ?? msg.type;
    const text = typeof msg.content === 'string' ? msg.content.trim() : '';
    if (!text || (type !== 'ai' && type !== 'tool')) return [];
    const agent = type === 'tool' ? `${msg.name ?? 'tool'} (tool)` : workflow;
    const key = msg.id ?? `${node}:${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    return [{ key: `msg:${key}`, agent, text }];
  });
}
