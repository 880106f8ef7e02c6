/**
 * A workflow whose graph runs on a LangGraph server (`remote:` in the config file). Its
 * interrupts (signoff's review requests, HITLRequest, Agent Inbox) become the same cards as a
 * local graph's; what its nodes add to `messages` is said in the thread, as your own graph's is.
 */
import type { WorkflowConfig } from '../../config/workflows.js';
import { ownWorkflowDescription } from '../catalog.js';
import { speaking } from '../custom.js';
import { goalOf } from '../shared/goal.js';
import type { WorkflowDefinition } from '../shared/types.js';
import { createRemoteGraph } from './remote-graph.js';

export function remoteWorkflow(name: string, settings: WorkflowConfig): WorkflowDefinition {
  const remote = settings.remote;
  if (!remote) throw new Error(`workflows.${name} names no remote graph`);
  return {
    name,
    description: ownWorkflowDescription(name, settings),
    build: (deps) => speaking(createRemoteGraph(remote, deps.logger), name),
    input: (task) => ({ messages: [{ role: 'user', content: goalOf(task) }] }),
    // The server keeps its own checkpoints; each step's, as a local agent's loop does.
    durability: 'async',
    outcome: () => ({ status: 'done' }),
  };
}
