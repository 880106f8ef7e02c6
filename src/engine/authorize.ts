import type { Queryable } from '../db/queryable.js';
import { SignoffError } from '../errors.js';
import { checkpointSchema, type WorkflowsConfig, workflowSettings } from '../workflow-config.js';
import { reviewsOf } from './store.js';
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
/** The user groups a checkpoint names among its reviewers. */
export const groupsNamed = (settings: Pick<ReviewSettings, 'reviewers'>) =>
  settings.reviewers.filter((r) => r.startsWith('S'));

export async function withGroups(settings: Pick<ReviewSettings, 'reviewers'>, actor: Actor): Promise<Actor> {
  const named = groupsNamed(settings);
  if (!named.length || !actor.memberOf) return actor;
  return { ...actor, groups: await actor.memberOf(named) };
}

/**
 * Cancel, retry and redirect from a shared place (Slack): the requester, whoever may reject a
 * pending review, or whoever the workflow's checkpoints name as reviewers. Throws otherwise.
 */
export async function assertMayControl(
  db: Queryable,
  config: WorkflowsConfig,
  task: Task,
  actor: Actor,
  what: 'cancel' | 'retry' | 'redirect',
): Promise<void> {
  if (actor.id === task.requester) return;
  const configured = Object.values(workflowSettings(config, task.workflow).checkpoints);
  const rules = [
    ...(await reviewsOf(db, task.id, 'pending')).map((r) => r.settings),
    ...(configured.length ? configured : [config.defaults.checkpoint ?? checkpointSchema.parse({})]),
  ];
  for (const rule of rules) {
    if (!refusal(rule, task, await withGroups(rule, actor), 'reject')) return;
  }
  throw new SignoffError(
    'not_allowed',
    `Sorry, only the person who started this task or one of its reviewers can ${what} it.`,
  );
}
