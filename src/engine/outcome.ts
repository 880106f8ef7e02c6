/**
 * A task rejected by a timer, told honestly: when the decision that ended it was a timeout's
 * reject, its reason says so, whatever words the workflow chose, so that nobody reads "rejected
 * at review" and believes a person rejected it. Only rejections: a reject ends a task at once,
 * while an approval by timer may be followed by more work that ends it for other reasons (its
 * card says it was automatic).
 */
import type { Queryable } from '../db/queryable.js';
import type { Decision, TaskStatus } from './types.js';

export async function honestOutcome(
  db: Queryable,
  taskId: string,
  outcome: { status: TaskStatus; reason?: string },
): Promise<{ status: TaskStatus; reason?: string }> {
  if (outcome.status !== 'rejected') return outcome;
  const r = await db.query<{ decision: Decision }>(
    `SELECT decision FROM signoff.reviews WHERE task_id = $1 AND status = 'decided'
     ORDER BY decided_at DESC LIMIT 1`,
    [taskId],
  );
  const last = r.rows[0]?.decision;
  if (!last?.automatic || last.action !== 'reject') return outcome;
  return { status: outcome.status, reason: `rejected automatically: ${last.automatic}` };
}
