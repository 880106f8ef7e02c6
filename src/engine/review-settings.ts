import { checkpointSettings, type WorkflowsConfig } from '../config/workflows.js';
import type { ReviewSettings } from './types.js';

/** What a new review of `checkpoint` keeps from the config file (its rules travel with it). */
export function reviewSettings(
  config: WorkflowsConfig,
  workflow: string,
  checkpoint: string,
): ReviewSettings {
  const c = checkpointSettings(config, workflow, checkpoint);
  return {
    reviewers: c.reviewers,
    allowSelfApproval: c.allowSelfApproval,
    allowExternal: c.allowExternal,
    timeoutSeconds: c.timeout,
    onTimeout: c.onTimeout,
    remindersBeforeSeconds: c.reminders,
    allowSkip: c.allowSkip,
    dmReviewers: c.dmReviewers,
    notify: c.notify,
    approvals: c.approvals,
    ...(c.onTimeout === 'escalate'
      ? {
          escalation: {
            steps: c.escalation
              ? c.escalation.map((e) => ({ to: e.to, afterSeconds: e.after ?? c.timeout ?? 0 }))
              : [{ to: c.escalateTo ?? [], afterSeconds: c.escalateAfter ?? c.timeout ?? 0 }],
            finalAction: c.finalAction,
          },
        }
      : {}),
    feedback: c.feedback,
    replies: c.replies,
  };
}
