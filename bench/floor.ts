/**
 * The floor: the same pair graph resumed directly with LangGraph + PostgresSaver, with the
 * durability the engine uses for it, and nothing of signoff around it.
 */
import { Command, INTERRUPT, isInterrupted } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type pg from 'pg';
import { createDocuments } from '../src/docs/documents.js';
import { ScriptedChatModel } from '../src/llm/scripted.js';
import { parseWorkflowConfig, workflowSettings } from '../src/workflow-config.js';
import { buildPairGraph, pairWorkflow } from '../src/workflows/pair/pair-graph.js';
import { revise, throughput } from './stats.js';

export async function floor(pool: pg.Pool, rounds: number, tasks: number, roundsPerTask: number) {
  const saver = new PostgresSaver(pool, undefined, { schema: 'floor' });
  await saver.setup();
  const graph = buildPairGraph({
    modelFor: ({ name }) => new ScriptedChatModel({ agent: name }),
    say: async () => undefined,
    settings: workflowSettings(parseWorkflowConfig('', 'bench'), 'pair'),
    checkpointer: saver,
    documents: createDocuments(pool),
  });
  const durability = pairWorkflow.durability;
  const start = async (thread: string) => {
    const config = { configurable: { thread_id: thread }, durability };
    const r = await graph.invoke(pairWorkflow.input({ text: 'benchmark task', requester: 'bench' }), config);
    if (!isInterrupted(r)) throw new Error('the pair graph did not interrupt');
    return { config, id: r[INTERRUPT][0]?.id as string };
  };
  const resume = async (t: Awaited<ReturnType<typeof start>>, round: number) => {
    const r = await graph.invoke(new Command({ resume: { [t.id]: revise(`round ${round}`) } }), t.config);
    if (!isInterrupted(r)) throw new Error('the pair graph did not interrupt');
    t.id = r[INTERRUPT][0]?.id as string;
  };

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
