/**
 * Every event's key, in one place. A key is unique per task (the outbox records an event once
 * per task and key), and names the one occasion the event is about, so that a step run again,
 * a retried job or two racing callers record it once. Surfaces may read a key's kind from its
 * first word (`escalated:` …).
 */
export const eventKey = {
  /** The task was started. */
  started: () => 'started',
  /** An agent's message: `key` is its own within the step, `generation` the task's (0: none). */
  said: (generation: number, key: string) => `said:${generation === 0 ? '' : `${generation}:`}${key}`,
  /** The task's status changed to its `version`. */
  status: (version: number) => `status:${version}`,
  redirected: (generation: number) => `redirected:${generation}`,
  reviewRequested: (reviewId: string) => `review:${reviewId}`,
  decided: (reviewId: string) => `decided:${reviewId}`,
  closed: (reviewId: string) => `closed:${reviewId}`,
  /** One person's approval counted towards a quorum (once each). */
  approved: (reviewId: string, by: string) => `approved:${reviewId}:${by}`,
  /** The review's `n`-th edit counted towards a quorum. */
  edited: (reviewId: string, n: number) => `edited:${reviewId}:${n}`,
  escalated: (reviewId: string, step: number) => `escalated:${reviewId}:${step}`,
  reminder: (reviewId: string, n: number) => `remind:${reviewId}:${n}`,
  overdue: (reviewId: string) => `overdue:${reviewId}`,
  /** The review's `n`-th change of claim (claimed, handed over, released). */
  claimed: (reviewId: string, n: number) => `claimed:${reviewId}:${n}`,
  /** A standing rule proposed from one of the task's reviews changed: its status, and the approvals counted. */
  rule: (id: number, status: string, approvals: number) => `rule:${id}:${status}:${approvals}`,
  /** What is shown instead of the event `failedKey`, which its surface refused for good. */
  fallback: (failedKey: string) => `fallback:${failedKey}`,
} as const;
