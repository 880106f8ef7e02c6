/**
 * A finished task's status, told honestly: when the decision that ended it was a timer's (a
 * timeout's default action), its reason says so, whatever words the workflow chose. Nobody
 * reads "rejected at review" and believes a person rejected it.
 */
import type { Queryable } from '../db/queryable.js';
import type { Decision, TaskStatus } from './types.js';

export async function honestOutcome(
  db: Queryable,
  taskId: string,
  outcome: { status: TaskStatus; reason?: string },
): Promise<{ status: TaskStatus; reason?: string }> {
  if (outcome.status !== 'rejected' && outcome.status !== 'done') return outcome;
  const r = await db.query<{ decision: Decision }>(
    `SELECT decision FROM signoff.reviews WHERE task_id = $1 AND status = 'decided'
     ORDER BY decided_at DESC LIMIT 1`,
    [taskId],
  );
  const last = r.rows[0]?.decision;
  if (!last?.automatic) return outcome;
  const how = last.action === 'approve' ? 'approved' : 'rejected';
  return { status: outcome.status, reason: `${how} automatically: ${last.automatic}` };
}
