/**
 * How a workflow's agents speak: through LangGraph's own stream (`config.writer`, stream mode
 * `custom`), keyed by graph step and node. Nothing is posted from inside a node: the runner
 * records what was said once the step is saved (durability `sync`), or once the run has stopped
 * (`exit`, `async`), so what people see is what the agents' state holds, even after a crash.
 */
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { z } from 'zod';

/** What `say` writes to the custom stream. */
export const saidSchema = z.object({
  type: z.literal('signoff_said'),
  /** Unique within a graph thread: step, node, and the part of the node's output. */
  key: z.string(),
  /** The node that said it (its words count once the node has finished). */
  node: z.string(),
  /** The graph task (node run) that said it: LangGraph's checkpoint namespace. */
  ns: z.string().optional(),
  agent: z.string(),
  text: z.string(),
});
export type Said = z.infer<typeof saidSchema>;

export function say(
  config: LangGraphRunnableConfig,
  message: { agent: string; text: string; part?: number },
): void {
  const meta = config.metadata ?? {};
  const said: Said = {
    type: 'signoff_said',
    key: `${meta.langgraph_step}:${meta.langgraph_node}:${message.part ?? 0}`,
    node: String(meta.langgraph_node),
    ns: typeof meta.langgraph_checkpoint_ns === 'string' ? meta.langgraph_checkpoint_ns : undefined,
    agent: message.agent,
    text: message.text,
  };
  config.writer?.(said);
}
