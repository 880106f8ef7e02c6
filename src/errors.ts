/**
 * Coded errors (the bolt-js pattern): a small union of codes, one class, and every rethrow
 * keeps its `cause`. Surfaces turn a code into a sentence for a person; logs keep the object.
 */
export type ErrorCode =
  | 'config_invalid'
  | 'bad_arguments'
  | 'unknown_workflow'
  | 'workflow_disabled'
  | 'empty_task'
  | 'unknown_task'
  | 'unknown_review'
  | 'review_not_pending'
  | 'task_not_waiting'
  | 'task_not_working'
  | 'not_allowed'
  /** Whether the person may act hinges on what the surface could not say just now (a user group). */
  | 'directory_unavailable'
  | 'not_addressed'
  /** A start refused: the person or the channel has as many tasks in the agents' hands as allowed. */
  | 'too_many_tasks'
  | 'invalid_decision'
  /** A decision made on other content than the review shows now (its `contentHash` differs). */
  | 'stale_review'
  /** An approval of a quorum the person has given already. */
  | 'counted_already'
  /** A timer's approval of what it may never approve (a tool call, content nobody could see). */
  | 'approval_withheld'
  | 'database_unavailable'
  | 'lease_lost'
  /** A door's idempotency key reused for a different request. */
  | 'idempotency_mismatch'
  /** A door's ask whose card is still being posted (it cannot be cancelled yet). */
  | 'still_starting'
  /** "Always allow" where the config file names nobody to sign off a rule, or a scope the review does not offer. */
  | 'rules_off'
  | 'unknown_rule'
  /** A rule already signed off, refused or revoked (it takes no approval, refusal or revoke any more). */
  | 'rule_closed'
  /** A file named rightly that cannot be used as it is (`docs add`: not UTF-8, not text at all). */
  | 'unusable_file';

export class SignoffError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SignoffError';
  }
}

export const isSignoffError = (error: unknown, code?: ErrorCode): error is SignoffError =>
  error instanceof SignoffError && (code === undefined || error.code === code);

/**
 * The code of a delivery that failed in signoff itself, not in the surface (a database error, a
 * payload that would not parse): its text is for the log only, never shown to people.
 */
export const SIGNOFF_FAILED = 'signoff_failed';

/**
 * How a surface failed to show an event, so the engine knows what to do with it:
 * - `temporary`: try again later (the service down, a timeout); `retryAfterMs`: not sooner than
 *   that (a post Slack did not answer may still be made: the next attempt looks for it first);
 * - `refused`: this message will not be accepted as it is (Slack's `invalid_blocks`); a few more
 *   tries, then it is marked failed and a short fallback is shown instead;
 * - `unreachable`: nothing can be shown for this task any more (the bot was removed from the
 *   channel, the channel archived); the task fails with a sentence that says so;
 * - `limited`: the surface's rate limit says not yet (`retryAfterMs`); not a failed attempt, the
 *   event just goes out later, and only its own lane waits.
 */
export class DeliveryError extends Error {
  constructor(
    readonly kind: 'temporary' | 'refused' | 'unreachable' | 'limited',
    /** The surface's own error code (Slack's `error`; SIGNOFF_FAILED for signoff's own failure). */
    readonly code: string,
    options?: { cause?: unknown; retryAfterMs?: number; reason?: string },
  ) {
    super(`${kind}: ${code}`, options);
    this.name = 'DeliveryError';
    this.retryAfterMs = options?.retryAfterMs;
    this.reason = options?.reason;
  }
  readonly retryAfterMs: number | undefined;
  /** For `unreachable`: the sentence the task's status shows (what happened, what to do). */
  readonly reason: string | undefined;
}
