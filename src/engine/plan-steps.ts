/**
 * A plan's steps: a task's graph's nodes in the graph's order, titled as a person reads them, and
 * the plan as a run starts from it, as a cancel leaves it, and as a run settled from its saved
 * state shows it. How a run moves it is progress.ts.
 */
import type { RunnableGraph } from '../workflows/shared/types.js';
import type { Progress, ProgressStep, Task } from './types.js';

/** LangGraph's own nodes, not steps of the work. */
export const INTERNAL_NODES = new Set(['__start__', '__end__']);

/** A node's name as a person reads it: `write_draft`, `writeDraft` and `write-draft` read "Write draft". */
export function stepTitle(node: string): string {
  const words = node
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.:]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words[0]?.toUpperCase() + words.slice(1) : node;
}

/** A step of the graph: its node, and its title when the graph gives one (node metadata `title`). */
export interface GraphStep {
  node: string;
  title?: string;
}

/**
 * The graph's nodes, in its order, each with the title a graph may give it in the node's
 * metadata (`addNode(name, fn, { metadata: { title } })`); none when the graph cannot say (steps
 * are then added as they run).
 */
export function nodesOf(graph: RunnableGraph): readonly GraphStep[] {
  const known = stepsOfGraph.get(graph);
  if (known) return known;
  const steps = readSteps(graph);
  stepsOfGraph.set(graph, steps);
  return steps;
}

/** A compiled graph's steps never change; drawing them (`getGraph`) is paid once per graph, not per run. */
const stepsOfGraph = new WeakMap<RunnableGraph, readonly GraphStep[]>();

function readSteps(graph: RunnableGraph): GraphStep[] {
  try {
    const nodes = graph.getGraph?.().nodes ?? {};
    return Object.values(nodes)
      .filter((n) => !INTERNAL_NODES.has(n.id))
      .map((n) => {
        const title = n.metadata?.title;
        return typeof title === 'string' && title.trim()
          ? { node: n.id, title: title.trim() }
          : { node: n.id };
      });
  } catch {
    return [];
  }
}

/**
 * The plan a run starts from: the task's own for this generation (a resumed or retried run goes
 * on from where the last one left it), laid over the graph's nodes; else every step pending.
 */
export function startingPlan(
  task: Pick<Task, 'generation' | 'progress'>,
  nodes: readonly GraphStep[],
): Progress {
  const kept = task.progress?.generation === task.generation ? task.progress.steps : [];
  const byNode = new Map(kept.map((s) => [s.node, s]));
  const steps: ProgressStep[] = nodes.map(
    ({ node, title }) => byNode.get(node) ?? { node, title: title ?? stepTitle(node), status: 'pending' },
  );
  // Steps the graph no longer lists but that ran: kept, after the others.
  const listed = new Set(nodes.map((n) => n.node));
  for (const s of kept) if (!listed.has(s.node)) steps.push(s);
  return { generation: task.generation, steps };
}

/**
 * The plan of a run settled from its saved state (its run died after saving its step, or its
 * settling failed): of the saved state's `unfinished` tasks, a node asking for a review waits and a
 * node cut off stays as it was shown (it runs again when the task is resumed); every other step
 * still shown running, or waiting for a review since answered, is over. None when no plan of this
 * generation was written (the surface shows no steps it cannot vouch for), or when it reads so.
 * The saved state cannot tell a node cut off from one that finished writing nothing to the state
 * (routing only): such a node, beside one asking, stays as shown until the task's next run.
 */
export function settledPlan(
  task: Pick<Task, 'generation' | 'progress'>,
  graph: RunnableGraph,
  unfinished: readonly { name: string; interrupts: readonly unknown[] }[],
): Progress | undefined {
  if (task.progress?.generation !== task.generation) return undefined;
  const asking = new Set(unfinished.filter((t) => t.interrupts.length).map((t) => t.name));
  const cut = new Set(unfinished.filter((t) => !t.interrupts.length).map((t) => t.name));
  const plan = startingPlan(task, nodesOf(graph));
  const steps = plan.steps.map((s): ProgressStep => {
    const { node, title } = s;
    if (asking.has(node)) return { node, title, status: 'in_progress', waiting: true };
    if (cut.has(node)) return s;
    return s.status === 'in_progress' ? { node, title, status: 'complete' } : s;
  });
  const settled = { ...plan, steps };
  return JSON.stringify(settled) === JSON.stringify(task.progress) ? undefined : settled;
}

/**
 * The plan as a cancel leaves it: the steps that were running are errors, stopped by `by` (none
 * for a rule's cancel, a timeout). A step waiting for its review is stopped too: it will not run again.
 */
export function stopSteps(progress: Progress, by?: string): Progress {
  return {
    ...progress,
    steps: progress.steps.map((s) =>
      s.status === 'in_progress'
        ? { node: s.node, title: s.title, status: 'error', ...(by ? { stoppedBy: by } : {}) }
        : s,
    ),
  };
}
