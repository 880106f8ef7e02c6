import type { Queryable } from '../db/queryable.js';
import { SignoffError } from '../errors.js';
import {
  checkpointSchema,
  type RedirectWho,
  type WorkflowsConfig,
  workflowSettings,
} from '../workflow-config.js';
import { reviewsOf } from './store.js';
import { type Action, type Actor, approves, type ReviewSettings, type Task } from './types.js';

export type ControlAction = 'cancel' | 'retry' | 'redirect';

/**
 * Who may decide a review: anyone listed (a user id, a user group the actor is in, `requester`,
 * or `anyone`); the requester approving their own work (Approve, or Edit: an approval of the
 * edited call) only when the checkpoint allows it.
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
  if (approves(action) && !settings.allowSelfApproval && actor.id === task.requester) {
    return 'you started this task, so someone else has to approve it';
  }
  return undefined;
}

/** The user groups a checkpoint names among its reviewers. */
export const groupsNamed = (settings: Pick<ReviewSettings, 'reviewers'>) =>
  settings.reviewers.filter((r) => r.startsWith('S'));

/** The actor with the user groups it is in, asked (from Slack) only when the checkpoint names groups. */
export async function withGroups(settings: Pick<ReviewSettings, 'reviewers'>, actor: Actor): Promise<Actor> {
  const named = groupsNamed(settings);
  if (!named.length || !actor.memberOf || actor.groups) return actor;
  return { ...actor, groups: await actor.memberOf(named) };
}

/** The rules that say who may steer a task: its pending reviews' and its workflow's checkpoints'. */
async function controlRules(
  db: Queryable,
  config: WorkflowsConfig,
  task: Task,
): Promise<Pick<ReviewSettings, 'reviewers' | 'allowSelfApproval'>[]> {
  const configured = Object.values(workflowSettings(config, task.workflow).checkpoints);
  return [
    ...(await reviewsOf(db, task.id, 'pending')).map((r) => r.settings),
    ...(configured.length ? configured : [config.defaults.checkpoint ?? checkpointSchema.parse({})]),
  ];
}

/**
 * The actor with every group the task's rules name resolved, and no way left to ask: called
 * before a transaction, so that the check inside it never waits on Slack with a row locked.
 */
export async function withControlGroups(
  db: Queryable,
  config: WorkflowsConfig,
  task: Task,
  actor: Actor,
  what: ControlAction,
): Promise<Actor> {
  const { memberOf, ...rest } = actor;
  if (actor.operator || actor.id === task.requester || actor.groups || !memberOf) return rest;
  if (whoMay(config, task, what) !== 'reviewers') return rest;
  const named = [...new Set((await controlRules(db, config, task)).flatMap(groupsNamed))];
  return { ...rest, groups: named.length ? await memberOf(named) : [] };
}

/** Who may do `what` to the task: the requester and reviewers, or what the workflow's `redirect.who` says. */
function whoMay(config: WorkflowsConfig, task: Task, what: ControlAction): RedirectWho {
  return what === 'redirect' ? workflowSettings(config, task.workflow).redirect.who : 'reviewers';
}

const ONLY: Record<Exclude<RedirectWho, 'anyone'>, string> = {
  nobody: 'nobody can {what} this task from here',
  requester: 'only the person who started this task can {what} it',
  reviewers: 'only the person who started this task or one of its reviewers can {what} it',
};

/**
 * Who may cancel, retry and redirect: the operator at the terminal always; else the requester
 * or whoever may reject a pending review or is named a reviewer by the workflow's checkpoints;
 * a redirect as the workflow's `redirect.who` says. Throws otherwise. Asks nothing of a surface:
 * groups not already resolved count as not a member.
 */
export async function assertMayControl(
  db: Queryable,
  config: WorkflowsConfig,
  task: Task,
  actor: Actor,
  what: ControlAction,
): Promise<void> {
  if (actor.operator) return;
  const who = whoMay(config, task, what);
  if (who === 'anyone' || (who !== 'nobody' && actor.id === task.requester)) return;
  if (who === 'reviewers') {
    const known = { id: actor.id, groups: actor.groups ?? [] };
    for (const rule of await controlRules(db, config, task)) {
      if (!refusal(rule, task, known, 'reject')) return;
    }
  }
  throw new SignoffError('not_allowed', `Sorry, ${ONLY[who].replace('{what}', what)}.`);
}
