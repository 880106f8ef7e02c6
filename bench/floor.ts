/**
 * The floor: the same workflow graph resumed directly with LangGraph + PostgresSaver, with the
 * durability the engine uses for it, and nothing of signoff around it. `lead` reviews are
 * approved before the measured rounds begin (proposal: the query and insight reviews).
 */
import { Command, INTERRUPT, isInterrupted } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type pg from 'pg';
import { parseWorkflowConfig, workflowSettings } from '../src/config/workflows.js';
import { createDocuments } from '../src/docs/documents.js';
import { ScriptedChatModel } from '../src/llm/scripted.js';
import { pairWorkflow } from '../src/workflows/pair/pair-graph.js';
import type { WorkflowDefinition } from '../src/workflows/shared/types.js';
import { approve, BENCH_CONFIG, revise, throughput } from './stats.js';

export async function floor(
  pool: pg.Pool,
  rounds: number,
  tasks: number,
  roundsPerTask: number,
  workflow: WorkflowDefinition = pairWorkflow,
  lead = 0,
) {
  const saver = new PostgresSaver(pool, undefined, { schema: 'floor' });
  await saver.setup();
  const graph = workflow.build({
    modelFor: ({ name }) => new ScriptedChatModel({ agent: name }),
    settings: workflowSettings(parseWorkflowConfig(BENCH_CONFIG, 'bench'), workflow.name),
    checkpointer: saver,
    documents: createDocuments(pool),
  });
  const durability = workflow.durability;
  const answer = async (t: { config: object; id: string }, value: unknown) => {
    const r = await graph.invoke(new Command({ resume: { [t.id]: value } }), t.config);
    if (!isInterrupted(r)) throw new Error(`the ${workflow.name} graph did not interrupt`);
    t.id = r[INTERRUPT][0]?.id as string;
  };
  const start = async (thread: string) => {
    const config = { configurable: { thread_id: thread }, durability };
    const r = await graph.invoke(workflow.input({ text: 'benchmark task', requester: 'bench' }), config);
    if (!isInterrupted(r)) throw new Error(`the ${workflow.name} graph did not interrupt`);
    const t = { config, id: r[INTERRUPT][0]?.id as string };
    for (let i = 0; i < lead; i++) await answer(t, approve());
    return t;
  };
  const resume = (t: Awaited<ReturnType<typeof start>>, round: number) => answer(t, revise(`round ${round}`));

  const latency: number[] = [];
  let thread: Awaited<ReturnType<typeof start>> | undefined;
  for (let i = 0; i < rounds; i++) {
    // A fresh thread every 20 rounds, as the engine bench does, so both keep similar history sizes.
    if (!thread || i % 20 === 0) thread = await start(`floor-latency-${i}`);
    const t0 = performance.now();
    await resume(thread, i);
    latency.push(performance.now() - t0);
  }
  const threads = await Promise.all(Array.from({ length: tasks }, (_, i) => start(`floor-load-${i}`)));
  const perSecond = await throughput(tasks, roundsPerTask, (i, round) =>
    resume(threads[i] as Awaited<ReturnType<typeof start>>, round),
  );
  return { latency, perSecond };
}
