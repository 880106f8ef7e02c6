/**
 * Whether people can ever decide an ask. At a door the requester is the agent that asked: it
 * cannot click, so a checkpoint's `requester` seat counts for nobody there, whatever the
 * checkpoint says of approving one's own work.
 */
import { approvalsNeeded, approversLeft, type ReviewSettings } from '../engine/index.js';

/** Why nobody could ever decide (or approve) the ask, as a sentence; undefined when people can. */
export function unreachableReview(
  settings: Pick<ReviewSettings, 'reviewers' | 'approvals' | 'escalation'>,
  kind: string,
): string | undefined {
  // Those an escalation adds later count too: the review then waits for them.
  const added = settings.escalation?.steps.flatMap((s) => s.to) ?? [];
  const reviewers = [...new Set([...settings.reviewers.filter((r) => r !== 'requester'), ...added])];
  if (!reviewers.length)
    return `This checkpoint's only reviewer is the requester, which is the agent here: name reviewers (reviewers: [U…]), or give workflows.ask.checkpoints.${kind} reviewers.`;
  // Only named people can be counted: anyone in the channel, or a group, may hold enough.
  const people = approversLeft({ reviewers, allowSelfApproval: true }, [], '');
  const needed = approvalsNeeded(settings);
  if (people === undefined || people >= needed) return undefined;
  return `This review would need ${needed} approvals, but only ${people} of its reviewers can give one (${reviewers.join(', ')}; the requester is the agent here, which cannot approve): ask for ${people === 1 ? 'one approval' : `${people} approvals`} at most, or name more reviewers in workflows.ask.checkpoints.${kind}.`;
}
