/**
 * A working task's plan, derived rather than written per workflow: its steps are its graph's nodes
 * in the graph's order (built-in, declared and your own graphs alike), and they move as the run's
 * LangGraph stream (mode `tasks`) says a node started or finished. A node that asked for a review
 * stays in progress, waiting (it runs again with the answer); a node that runs again goes back to
 * in progress; a failed node is an error. A cancel marks the step it cut short as stopped by its
 * actor (`stopSteps`, plan-steps.ts, in the cancel's own transaction).
 *
 * The run writes its plan at most once per `everyMs`, the first `everyMs` after it began, and only
 * while it holds its lease and its task works on its generation: a plan never outlives its run's
 * right to speak. Each write is a status event; delivery shows only the latest. Its last state goes
 * with how the run ended: a failed run writes it; a finished run hands it to settling, whose
 * transaction writes it, shown by the status it sets (waiting, an outcome), or with a status of its
 * own when the run goes on at once (its reviews answered by rules). So a run shorter than `everyMs`
 * (a quick step, the offline model) that stops at a review or ends pays for no write of its own,
 * and its root is not redrawn twice in a moment on a method Slack limits (`chat.update`). A
 * settling the database refuses keeps the plan on its own before it is tried again; a run that
 * dies before settling, or whose settling lost its connection or lease, takes its last state with
 * it, and the run that settles it from the saved state says what that state vouches for
 * (`settledPlan`, plan-steps.ts).
 */
import type pg from 'pg';
import { z } from 'zod';
import { inTransaction } from '../db/queryable.js';
import { isSignoffError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { RunnableGraph } from '../workflows/shared/types.js';
import type { Delivery } from './delivery.js';
import { INTERNAL_NODES, nodesOf, startingPlan, stepTitle } from './plan-steps.js';
import type { Lease } from './runtime/index.js';
import { writeProgress } from './task-rows.js';
import type { Progress, ProgressStep, Task } from './types.js';

/** A `tasks` chunk: a node's task starting (`triggers`) or its result (`result`, `error`, `interrupts`). */
const taskChunkSchema = z.object({
  id: z.string(),
  name: z.string(),
  triggers: z.array(z.string()).optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
  interrupts: z.array(z.unknown()).optional(),
});

/** How a task's node ended, the worst of its parallel tasks (a Send runs one node many times). */
type Outcome = 'complete' | 'waiting' | 'error';
const WORSE: Outcome[] = ['complete', 'waiting', 'error'];

/** What a run tells its plan. */
export interface PlanOfRun {
  /** A chunk of the run's `tasks` stream. */
  see(chunk: unknown): void;
  /**
   * The run ended: with its result (`failed`: it threw, and its last state is written here;
   * `aborted`: it was stopped on purpose or its lease was lost, and writes nothing more). Resolves
   * once the writes under way are done, with a finished run's last state for settling to write
   * (none when it did not move since its last write).
   */
  end(how: { failed?: boolean; aborted?: boolean }): Promise<Progress | undefined>;
}

export interface ProgressTracker {
  /** The plan of one run of `task`, written under `lease`. */
  follow(task: Task, graph: RunnableGraph, lease: Lease): PlanOfRun;
}

/**
 * Writes a run's plan with a status event, only while the run holds its lease and its task works on
 * the plan's generation, and asks for it to be shown. Never throws: a plan is what people see of a
 * run, never a reason for the run, or its settling, to fail.
 */
export async function writePlan(
  deps: { pool: pg.Pool; delivery: Delivery; logger: Logger },
  task: Task,
  lease: Lease,
  plan: Progress,
  step?: string,
): Promise<void> {
  if (!lease.held()) return;
  try {
    const wrote = await inTransaction(deps.pool, async (db) => {
      // The task's row first (the update locks it), then the lease, as every fenced write.
      if (!(await writeProgress(db, task.id, plan, step))) return false;
      await lease.fence(db);
      return true;
    });
    if (wrote) void deps.delivery.kick(task, { soon: true });
  } catch (err) {
    if (!isSignoffError(err, 'lease_lost')) deps.logger.warn({ err, task: task.id }, 'progress not written');
  }
}

/** At most one write a second per task: a plan redraws its root message, which Slack limits. */
const EVERY_MS = 1000;

export function createProgress(deps: {
  pool: pg.Pool;
  delivery: Delivery;
  logger: Logger;
  everyMs?: number;
}): ProgressTracker {
  const everyMs = deps.everyMs ?? EVERY_MS;

  return {
    follow(task, graph, lease) {
      let plan = startingPlan(task, nodesOf(graph));
      /** Running tasks by LangGraph task id: their node. */
      const running = new Map<string, string>();
      /** The worst outcome so far of a node whose parallel tasks are not all done. */
      const outcomes = new Map<string, Outcome>();
      /** Nodes that started in this run. */
      const startedHere = new Set<string>();
      let dirty = false;
      // As if written as the run began: the first write waits `everyMs` (see above).
      let lastWrite = Date.now();
      let announced = '';
      let timer: NodeJS.Timeout | undefined;
      let writes: Promise<void> = Promise.resolve();

      const setStep = (node: string, change: Partial<ProgressStep> & Pick<ProgressStep, 'status'>) => {
        if (!plan.steps.some((s) => s.node === node) && !INTERNAL_NODES.has(node))
          plan.steps.push({ node, title: stepTitle(node), status: 'pending' });
        plan = {
          ...plan,
          steps: plan.steps.map((s) =>
            s.node === node
              ? {
                  node: s.node,
                  title: s.title,
                  status: change.status,
                  ...(change.waiting ? { waiting: true } : {}),
                }
              : s,
          ),
        };
        dirty = true;
      };

      /** The steps now running (not waiting), in words: said once each time they change. */
      const nowRunning = () =>
        plan.steps
          .filter((s) => s.status === 'in_progress' && !s.waiting)
          .map((s) => s.title)
          .join(', ');

      const write = (snapshot: Progress, step: string | undefined) =>
        writePlan(deps, task, lease, snapshot, step);

      const flush = (announce: boolean) => {
        timer = undefined;
        if (!dirty) return;
        dirty = false;
        lastWrite = Date.now();
        const running = nowRunning();
        const step = announce && running && running !== announced ? running : undefined;
        if (announce) announced = running;
        const snapshot = plan;
        writes = writes.then(() => write(snapshot, step));
      };

      const schedule = () => {
        if (timer) return;
        // A change a while after the last write goes at once (on the next turn, with the chunks of its moment).
        timer = setTimeout(() => flush(true), Math.max(0, lastWrite + everyMs - Date.now()));
        timer.unref();
      };

      return {
        see(raw) {
          const parsed = taskChunkSchema.safeParse(raw);
          if (!parsed.success) return;
          const chunk = parsed.data;
          const isResult = 'result' in chunk || 'error' in chunk;
          if (!isResult) {
            const again = [...running.values()].includes(chunk.name);
            running.set(chunk.id, chunk.name);
            startedHere.add(chunk.name);
            if (!again) {
              outcomes.delete(chunk.name);
              setStep(chunk.name, { status: 'in_progress' });
            }
          } else {
            running.delete(chunk.id);
            const outcome: Outcome = chunk.error
              ? 'error'
              : (chunk.interrupts?.length ?? 0) > 0
                ? 'waiting'
                : 'complete';
            const before = outcomes.get(chunk.name) ?? 'complete';
            const worst = WORSE[Math.max(WORSE.indexOf(before), WORSE.indexOf(outcome))] as Outcome;
            outcomes.set(chunk.name, worst);
            if (![...running.values()].includes(chunk.name)) {
              outcomes.delete(chunk.name);
              if (worst === 'waiting') setStep(chunk.name, { status: 'in_progress', waiting: true });
              else setStep(chunk.name, { status: worst });
            }
          }
          schedule();
        },
        async end({ failed, aborted }) {
          clearTimeout(timer);
          timer = undefined;
          if (!aborted) {
            // A step still shown running is over: it finished without a result in the stream (its
            // writes were saved by an earlier run), or it failed with this run (one it started:
            // a run refused before it began leaves the plan to the run that follows).
            for (const s of plan.steps)
              if (s.status === 'in_progress' && !s.waiting && (!failed || startedHere.has(s.node)))
                setStep(s.node, { status: failed ? 'error' : 'complete' });
            if (failed) flush(false);
          }
          await writes;
          if (failed || aborted || !dirty) return undefined;
          dirty = false;
          return plan;
        },
      };
    },
  };
}
