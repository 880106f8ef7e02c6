/**
 * One run of a task's graph: stepwise (a long run prunes as it goes and never holds a quadratic
 * history), recording what the agents said as it is saved, and keeping what settling needs.
 */
import { INTERRUPT, type LangGraphRunnableConfig } from '@langchain/langgraph';
import type pg from 'pg';
import { type WorkflowsConfig, workflowSettings } from '../config/workflows.js';
import { saidSchema } from '../workflows/shared/say.js';
import type { Delivery } from './delivery.js';
import { eventKey } from './event-keys.js';
import { recordAll } from './event-store.js';
import { createWordStreams, type LiveRun, type RunEnd } from './live.js';
import type { ProgressTracker } from './progress.js';
import { pruneCheckpoints } from './prune.js';
import type { Lease } from './runtime/index.js';
import type { LoadedWorkflow, RunResult } from './settling.js';
import { type EngineEvent, type Task, threadOf } from './types.js';

/** Steps between prunes inside one run (a prune is one statement of indexed deletes). */
const PRUNE_EVERY_STEPS = 20;

/** An agent's message, ready to be recorded. */
type Spoken = { key: string; event: EngineEvent; node: string };

export function createGraphRun(deps: {
  pool: pg.Pool;
  delivery: Delivery;
  config: WorkflowsConfig;
  progress: ProgressTracker;
}) {
  const { pool, delivery } = deps;
  // Settling needs the interrupts pending at the end (a run re-emits those it leaves pending)
  // and the final values.
  return async function run(
    task: Task,
    workflow: LoadedWorkflow,
    input: unknown,
    config: LangGraphRunnableConfig,
    lease: Lease,
    live?: { view: LiveRun; id: string },
  ): Promise<RunResult> {
    const durability =
      workflowSettings(deps.config, task.workflow).durability ?? workflow.definition.durability;
    const interrupts = new Map<string, unknown>();
    let values: Record<string, unknown> | undefined;
    let steps = 0;
    // What the agents said is recorded only once it is saved, so that what people see is what
    // the state holds even if this process dies: each step's words when its checkpoint is written
    // (`sync`, before the next step starts), or all of them when the run stops (`exit`, `async`).
    let thisStep: Spoken[] = [];
    const finished: Spoken[] = [];
    const finishedNodes = new Set<string>();
    // Words as the models write them go to the surface's live view (live.ts), if it has one.
    const words = live && createWordStreams(live.view, live.id);
    const record = async (spoken: Spoken[], kick: boolean) => {
      const recorded = new Set((await recordAll(pool, task.id, spoken, task)).map((e) => e.key));
      // A key saved before (said again by a step run twice) keeps its first words: this stream
      // stands for nothing.
      const streamed = (saved: boolean) =>
        spoken.flatMap((s) =>
          s.event.type === 'agent_said' && s.event.streamed && recorded.has(s.key) === saved
            ? [s.event.streamed]
            : [],
        );
      if (live && streamed(true).length) live.view.kept(streamed(true));
      if (live && streamed(false).length) live.view.dropped(streamed(false));
      if (kick && spoken.length) void delivery.kick(task, { soon: true });
    };
    /** The streams still open close; a surface that fails at it fails nothing of the run. */
    const close = (how: RunEnd) => live?.view.close(how).catch(() => undefined);
    const plan = deps.progress.follow(task, workflow.graph, lease);
    try {
      const stream = await workflow.graph.stream(input, {
        ...config,
        durability,
        // `messages` makes the models stream (their `invoke` too), with the node that called them;
        // `tasks` says when a node starts and ends.
        streamMode: (words
          ? ['updates', 'values', 'custom', 'tasks', 'messages']
          : ['updates', 'values', 'custom', 'tasks']) as ['updates', 'values', 'custom', 'tasks'],
      });
      for await (const [mode, chunk] of stream as AsyncIterable<[string, Record<string, unknown>]>) {
        if (mode === 'messages') {
          words?.message(chunk);
          continue;
        }
        // A node started or finished: the task's plan moves (progress.ts).
        if (mode === 'tasks') {
          plan.see(chunk);
          continue;
        }
        if (mode === 'custom') {
          const said = saidSchema.safeParse(chunk);
          if (said.success) {
            const { key, agent, text, node, ns } = said.data;
            const streamed = words?.pair({ ns, node, agent });
            thisStep.push({
              key: eventKey.said(task.generation, key),
              event: { type: 'agent_said', agent, text, ...(streamed && { streamed }) },
              node,
            });
          }
          continue;
        }
        // A node's update: it finished, and (with sync) its result is saved even if a sibling fails.
        if (mode === 'updates') for (const node of Object.keys(chunk)) finishedNodes.add(node);
        const pending = chunk[INTERRUPT] as { id: string; value: unknown }[] | undefined;
        if (pending) for (const i of pending) interrupts.set(i.id, i.value);
        else if (mode === 'values') {
          values = chunk;
          // The step is over; with `sync` its checkpoint is written by now.
          if (durability === 'sync') await record(thisStep, true);
          else finished.push(...thisStep);
          thisStep = [];
          finishedNodes.clear();
          words?.stepEnded();
        }
        if (mode === 'updates' && !pending && ++steps % PRUNE_EVERY_STEPS === 0)
          await pruneCheckpoints(pool, threadOf(task));
      }
    } catch (error) {
      await plan.end({ failed: true, aborted: config.signal?.aborted });
      // LangGraph saves the finished steps as a run fails; the failing step's words were never
      // saved and are not shown. A run stopped on purpose (cancel, redirect) shows nothing more.
      if (!config.signal?.aborted) {
        // With sync, a node of the failing step that finished keeps its result (a retry does not
        // run it again), so its words are shown too.
        const kept = durability === 'sync' ? thisStep.filter((w) => finishedNodes.has(w.node)) : [];
        await record([...finished, ...kept], true);
      }
      await close(config.signal?.aborted ? 'stopped' : 'failed');
      throw error;
    }
    const last = await plan.end({});
    // Settling the run delivers these with the review they lead up to.
    await record([...finished, ...thisStep], false);
    await close('finished');
    return {
      interrupts: [...interrupts].map(([id, value]) => ({ id, value })),
      finished: interrupts.size === 0,
      values,
      ...(last && { plan: last }),
    };
  };
}
