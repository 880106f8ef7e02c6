import { describe, expect, it } from 'vitest';
import { unreachableReview } from '../../src/api/ask-quorum.js';

describe('an ask people could never decide', () => {
  it('is refused when the requester (the agent) is the only reviewer', () => {
    expect(unreachableReview({ reviewers: ['requester'] }, 'review')).toContain(
      'only reviewer is the requester, which is the agent here',
    );
  });

  it('is refused when the named people other than the agent are fewer than the approvals needed', () => {
    expect(unreachableReview({ reviewers: ['requester', 'U0DAN'], approvals: 2 }, 'tool_call')).toBe(
      'This review would need 2 approvals, but only 1 of its reviewers can give one (U0DAN; the requester is the agent here, which cannot approve): ask for one approval at most, or name more reviewers in workflows.ask.checkpoints.tool_call.',
    );
  });

  it('is let through when enough named people remain, or when anyone or a group may approve (who cannot be counted)', () => {
    expect(
      unreachableReview({ reviewers: ['requester', 'U0DAN', 'U0EVE'], approvals: 2 }, 'review'),
    ).toBeUndefined();
    expect(unreachableReview({ reviewers: ['requester', 'anyone'], approvals: 3 }, 'review')).toBeUndefined();
    expect(unreachableReview({ reviewers: ['requester', 'S0OPS'], approvals: 2 }, 'review')).toBeUndefined();
    expect(unreachableReview({ reviewers: ['U0DAN'] }, 'review')).toBeUndefined();
    const escalation = { steps: [{ to: ['U0EVE'], afterSeconds: 60 }], finalAction: 'reject' as const };
    expect(
      unreachableReview({ reviewers: ['requester', 'U0DAN'], approvals: 2, escalation }, 'review'),
    ).toBeUndefined();
    // Nobody but the agent until the deadline escalates: the review waits for those it adds.
    expect(unreachableReview({ reviewers: ['requester'], escalation }, 'review')).toBeUndefined();
  });
});
