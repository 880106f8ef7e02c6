/**
 * What an ask is now, as its client reads it: derived from its start (posted, refused), its task
 * and its review as the engine keeps them. Pure: the API, the callbacks and MCP show the same.
 */
import {
  type AskAnswer,
  approvalsNeeded,
  askAnswer,
  type Decision,
  type Review,
  type Task,
} from '../engine/index.js';
import type { AskRow } from './ask-rows.js';
import type { AskView } from './ask-shapes.js';

type ApprovalView = NonNullable<AskView['decision']>['approvals'][number];

/** One approval as the client reads it: the engine's record less its content hash. */
const approvalView = (a: { by: string; at: string; for?: string }): ApprovalView => ({
  by: a.by,
  at: a.at,
  ...(a.for ? { for: a.for } : {}),
});

/**
 * The approvals that made a decision, oldest first. A quorum's decision records each (the last is
 * its `by`); a single approval is its decider alone. A timer or a rule approved for nobody, and a
 * revise or reject is no approval, whatever was counted before it.
 */
function approvalsOf(d: Decision, outcome: AskAnswer['outcome']): ApprovalView[] {
  if (d.automatic || outcome !== 'approved') return [];
  return (d.approvals ?? [{ by: d.by, at: d.at }]).map(approvalView);
}

export function askView(
  ask: AskRow,
  start: { taskId?: string; root?: string; refusal?: string },
  task: Task | undefined,
  reviews: Review[],
): AskView {
  const base: AskView = {
    id: ask.id,
    status: 'starting',
    channel: ask.channel,
    title: task?.text ?? ask.title,
    createdAt: ask.createdAt,
  };
  if (!task) return start.refusal ? { ...base, status: 'failed', reason: start.refusal } : base;
  const origin = task.origin as { channel?: string; ts?: string };
  const slack = origin.channel && origin.ts ? { channel: origin.channel, ts: origin.ts } : undefined;
  const withSlack = { ...base, taskId: task.id, ...(slack ? { slack } : {}) };
  // The ask workflow opens one review; the latest is the one that counts.
  const review = reviews.at(-1);
  if (review?.status === 'decided' && review.decision) {
    const answer = askAnswer(review.request, review.decision);
    const d = review.decision;
    return {
      ...withSlack,
      status: answer.outcome,
      decision: {
        by: d.by,
        at: d.at,
        ...(d.automatic ? { automatic: d.automatic } : {}),
        ...(answer.feedback ? { feedback: answer.feedback } : {}),
        ...(answer.arguments ? { arguments: answer.arguments, edited: answer.edited ?? false } : {}),
        approvals: approvalsOf(d, answer.outcome),
      },
    };
  }
  if (task.status === 'cancelled')
    return { ...withSlack, status: 'cancelled', reason: task.statusReason ?? 'cancelled' };
  // A failed task may be retried (its Retry button): not an answer, so the ask still waits, and
  // says why it is stuck. Only a start refused for good is `failed`.
  const stuck =
    task.status === 'failed'
      ? {
          reason: `${task.statusReason ?? 'The review could not go on.'} Someone in the channel may retry it.`,
        }
      : {};
  if (review?.status === 'pending') {
    return {
      ...withSlack,
      ...stuck,
      status: 'pending',
      reviewers: review.settings.reviewers,
      approvals: {
        count: review.approvals.length,
        needed: approvalsNeeded(review.settings),
        // Counted towards the quorum so far, as the card shows them (the review row's, oldest first).
        given: review.approvals.map(approvalView),
      },
      dueAt: review.dueAt,
    };
  }
  return { ...withSlack, ...stuck };
}
