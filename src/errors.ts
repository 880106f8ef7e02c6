/**
 * Coded errors (the bolt-js pattern): a small union of codes, one class, and every rethrow
 * keeps its `cause`. Surfaces turn a code into a sentence for a person; logs keep the object.
 */
export type ErrorCode =
  | 'config_invalid'
  | 'unknown_workflow'
  | 'workflow_disabled'
  | 'empty_task'
  | 'unknown_task'
  | 'unknown_review'
  | 'review_not_pending'
  | 'task_not_waiting'
  | 'task_not_working'
  | 'not_allowed'
  | 'invalid_decision'
  | 'database_unavailable';

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
