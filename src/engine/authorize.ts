import type { Action, Actor, ReviewSettings, Task } from './types.js';

/**
 * Who may decide a review: anyone listed (a user id, a user group the actor is in, `requester`,
 * or `anyone`); the requester approving their own work only when the checkpoint allows it.
 * Returns the reason for a refusal, or undefined when allowed.
 */
export function refusal(
  settings: Pick<ReviewSettings, 'reviewers' | 'allowSelfApproval'>,
  task: Task,
  actor: Actor,
  action: Action,
): string | undefined {
  const groups = new Set(actor.groups ?? []);
  const listed = settings.reviewers.some(
    (r) =>
      r === 'anyone' || r === actor.id || groups.has(r) || (r === 'requester' && actor.id === task.requester),
  );
  if (!listed) return 'you are not a reviewer for this step';
  if (action === 'approve' && !settings.allowSelfApproval && actor.id === task.requester) {
    return 'you started this task, so someone else has to approve it';
  }
  return undefined;
}

/** The actor with the user groups it is in, asked (from Slack) only when the checkpoint names groups. */
export async function withGroups(settings: Pick<ReviewSettings, 'reviewers'>, actor: Actor): Promise<Actor> {
  const named = settings.reviewers.filter((r) => r.startsWith('S'));
  if (!named.length || !actor.memberOf) return actor;
  return { ...actor, groups: await actor.memberOf(named) };
}
