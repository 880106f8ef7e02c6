/**
 * A task's budget. Its models' answers are counted as they come (model-usage.ts); a task whose
 * cost reaches its budget has its run stopped (as a cancel stops it) before its next model call
 * and pauses with a review at `checkpoints.budget`: "spent $4.10 of $5.00": continue with as
 * much again, or stop. Never a silent kill.
 */
import type pg from 'pg';
import { checkpointSettings, type WorkflowsConfig, workflowSettings } from '../config/workflows.js';
import { inTransaction, type Queryable } from '../db/queryable.js';
import { BUDGET_CHECKPOINT } from '../workflows/protocol/requests.js';
import { withAwayDelegates } from './away.js';
import { insertReview } from './review-rows.js';
import type { Lease } from './runtime/index.js';
import { getTask, setStatus } from './task-rows.js';
import type { Review, ReviewRequest, Task } from './types.js';

/** A run stopped because its task reached its budget (the runner opens the review). */
export class BudgetReached extends Error {
  override name = 'BudgetReached';
  constructor(
    readonly spent: number,
    readonly budget: number,
  ) {
    super(`the task reached its budget ($${spent.toFixed(2)} of $${budget.toFixed(2)})`);
  }
}

/** The review a task pauses with at its budget. */
export function budgetRequest(spent: number, budget: number, more: number): ReviewRequest {
  const usd = (n: number) => `$${n.toFixed(2)}`;
  return {
    kind: BUDGET_CHECKPOINT,
    title: `Budget reached: spent ${usd(spent)} of ${usd(budget)}`,
    body: `The agents have spent ${usd(spent)} on their models, and their budget was ${usd(budget)}. Continue with ${usd(more)} more, or stop the task here.`,
    actions: ['approve', 'reject'],
    labels: { approve: `Continue with ${usd(more)} more`, reject: 'Stop' },
    round: 1,
    fields: [],
  };
}

/**
 * The task pauses with its budget review, behind the run's fence: the review (once per budget
 * reached) and the status `waiting`, together.
 */
export async function pauseAtBudget(
  deps: { pool: pg.Pool; config: WorkflowsConfig },
  task: Task,
  lease: Lease,
  reached: BudgetReached,
): Promise<void> {
  // What Continue gives is what its card says, whatever the file says by the time someone decides.
  const more = startBudget(deps.config, task.workflow) ?? reached.budget;
  await inTransaction(deps.pool, async (db) => {
    const current = await getTask(db, task.id, true);
    await lease.fence(db);
    // Cancelled or redirected meanwhile: the next run starts the new goal (or nothing).
    if (current?.status === 'cancelled' || current?.generation !== task.generation) return;
    const { rules: _, ...own } = checkpointSettings(deps.config, task.workflow, BUDGET_CHECKPOINT);
    // A named reviewer away has their delegate decide beside them, as at every review.
    const settings = await withAwayDelegates(db, { ...own, budget: more });
    await insertReview(db, {
      id: `${task.id}:budget:${Math.round(reached.budget * 100)}`,
      taskId: task.id,
      request: budgetRequest(reached.spent, reached.budget, more),
      settings,
      dueAt: null,
    });
    await setStatus(db, task.id, 'waiting', null);
  });
}

/**
 * What a task of `workflow` may spend before it pauses: its workflow's `budget`, else the least
 * of its checkpoints' (a round's, before the first review; the default checkpoint's stands for
 * those the workflow does not configure); null: no budget.
 */
export function startBudget(config: WorkflowsConfig, workflow: string): number | null {
  const own = workflowSettings(config, workflow);
  const rounds = [...Object.values(own.checkpoints), config.defaults.checkpoint].flatMap((c) =>
    c.budget === undefined ? [] : [c.budget],
  );
  return own.budget ?? (rounds.length ? Math.min(...rounds) : null);
}

/**
 * A round's budget: a decision at a checkpoint with `budget` gives the task that much more from
 * what it has spent (never less than it has left), in the decision's own transaction: once, and
 * before the run it resumes.
 */
export async function renewRoundBudget(
  db: Queryable,
  task: Pick<Task, 'id'>,
  review: { id: string; settings: { budget?: number } },
) {
  // A budget review's amount is given by its Continue, behind the run's fence (settleBudgets), not
  // a second time here: its Stop gives nothing.
  if (review.settings.budget === undefined || isBudgetReview({ id: review.id, taskId: task.id })) return;
  await db.query(
    'UPDATE signoff.tasks SET budget_usd = greatest(coalesce(budget_usd, 0), cost_usd + $2) WHERE id = $1',
    [task.id, review.settings.budget],
  );
}

/** A review the engine opened at a task's budget (not a graph's interrupt: the engine answers it). */
export const isBudgetReview = (r: Pick<Review, 'id' | 'taskId'>) => r.id.startsWith(`${r.taskId}:budget:`);

/**
 * Takes the budget reviews out of a task's decisions and applies them behind the run's fence, each
 * once: continue raises the budget by the amount its card named; stop stops the task (`stopped`).
 * `rest`: the graph's own decisions.
 */
export async function settleBudgets(
  pool: pg.Pool,
  task: Task,
  lease: Lease,
  decided: Review[],
  config: WorkflowsConfig,
): Promise<{ stopped: boolean; rest: Review[] }> {
  const budgets = decided.filter(isBudgetReview);
  const rest = decided.filter((r) => !isBudgetReview(r));
  if (!budgets.length) return { stopped: false, rest };
  const stopped = await inTransaction(pool, async (db) => {
    await getTask(db, task.id, true);
    await lease.fence(db);
    return applyBudgetDecisions(db, task, budgets, startBudget(config, task.workflow));
  });
  return { stopped, rest };
}

/** `before`: what a budget review opened before its card's amount was kept had on its card. */
async function applyBudgetDecisions(
  db: Queryable,
  task: Task,
  reviews: Review[],
  before: number | null,
): Promise<boolean> {
  const r = await db.query<{ id: string; decision: { action: string }; more: number | null }>(
    `UPDATE signoff.reviews SET applied_at = now() WHERE id = ANY($1) AND applied_at IS NULL
     RETURNING id, decision, (settings->>'budget')::float8 AS more`,
    [reviews.map((x) => x.id)],
  );
  let stopped = false;
  for (const row of r.rows) {
    if (row.decision.action === 'approve') {
      // "Continue with $5 more": five more from what is spent now.
      await db.query(
        'UPDATE signoff.tasks SET budget_usd = greatest(budget_usd, cost_usd) + coalesce($2, $3, budget_usd) WHERE id = $1',
        [task.id, row.more, before],
      );
    } else stopped = true;
  }
  if (stopped) await setStatus(db, task.id, 'stopped', 'stopped at its budget');
  return stopped;
}

/** "$8.00 spent · 60 tokens" (of its budget, when it has one); undefined before any model answered. */
export function usageInWords(
  task: Pick<Task, 'tokensIn' | 'tokensOut' | 'costUsd' | 'budgetUsd'>,
): string | undefined {
  const tokens = task.tokensIn + task.tokensOut;
  if (!tokens) return undefined;
  const usd = (n: number) => (n >= 0.01 || n === 0 ? `$${n.toFixed(2)}` : `$${n.toPrecision(2)}`);
  const of = task.budgetUsd !== null ? ` of ${usd(task.budgetUsd)}` : '';
  return `${usd(task.costUsd)}${of} spent · ${tokens.toLocaleString('en-US')} tokens`;
}
