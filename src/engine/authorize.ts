import { type RedirectWho, type WorkflowsConfig, workflowSettings } from '../config/workflows.js';
import type { Queryable } from '../db/queryable.js';
import { SignoffError } from '../errors.js';
import { reviewsOf } from './review-rows.js';
import { seatFilled } from './sign-off-rules.js';
import {
  type Action,
  type Actor,
  approves,
  type GroupAnswers,
  type GroupDirectory,
  type Review,
  type ReviewSettings,
  type Task,
} from './types.js';

export type ControlAction = 'cancel' | 'retry' | 'redirect';

type Rule = Pick<ReviewSettings, 'reviewers' | 'allowSelfApproval' | 'allowExternal'> &
  Partial<Pick<ReviewSettings, 'delegates'>>;

/** Who outsiders are, and what they may not do. */
const outsiders = (what: string) =>
  `people from outside this workspace's organization and guests cannot ${what}`;

/** The refusal of a person whose standing Slack did not say, saying why it matters. */
const unsureMember = (why: string) =>
  `Sorry, Slack did not say just now whether you are a member of this workspace (${why}); try again in a minute.`;

/** The named reviewers, away, in whose place `id` decides (`delegates`, away.ts). */
export function standsInFor(settings: Pick<ReviewSettings, 'reviewers' | 'delegates'>, id: string): string[] {
  return Object.entries(settings.delegates ?? {})
    .filter(([person, delegate]) => delegate === id && settings.reviewers.includes(person))
    .map(([person]) => person);
}

/** Whether the checkpoint lists the actor themselves: `anyone`, their id, `requester` (theirs), a group known to hold them. */
function listedThemselves(settings: Pick<ReviewSettings, 'reviewers'>, task: Task, actor: Actor): boolean {
  const groups = new Set(actor.groups ?? []);
  return settings.reviewers.some(
    (r) =>
      r === 'anyone' || r === actor.id || groups.has(r) || (r === 'requester' && actor.id === task.requester),
  );
}

/**
 * The seat an approval by the actor fills: none of another's when they are listed themselves; else
 * the first of those they stand in for still open (the first, when all are filled).
 */
export function seatFor(
  settings: Pick<ReviewSettings, 'reviewers' | 'delegates'>,
  task: Task,
  actor: Actor,
  approvals: readonly { by: string; for?: string }[],
): string | undefined {
  if (listedThemselves(settings, task, actor)) return undefined;
  const seats = standsInFor(settings, actor.id);
  return seats.find((p) => !seatFilled(approvals, p)) ?? seats[0];
}

/** Whether the checkpoint lists the actor, or they decide in place of a named reviewer who is away. */
function isListed(
  settings: Pick<ReviewSettings, 'reviewers' | 'delegates'>,
  task: Task,
  actor: Actor,
): boolean {
  return listedThemselves(settings, task, actor) || standsInFor(settings, actor.id).length > 0;
}

/**
 * Whether the actor's standing keeps them out of a rule: people from another organization and
 * guests (or someone their surface could not place) are, unless the rule sets `allowExternal` or
 * names their very user id. A user id in `reviewers` is the team's own choice of person, vouched
 * for by its config: nothing about them needs asking (so a directory outage stops no named
 * reviewer). `requester`, `anyone` and groups vouch for nobody.
 */
const keptOut = (settings: Pick<Rule, 'reviewers' | 'allowExternal'>, actor: Actor) =>
  Boolean(actor.external) && !settings.allowExternal && !settings.reviewers.includes(actor.id);

/**
 * Who may decide a review: anyone listed and not kept out (when their surface could not tell
 * whether they are from outside, they count as such); the requester approving their own work only
 * when the checkpoint allows it. Returns the reason for a refusal, or undefined.
 */
export function refusal(settings: Rule, task: Task, actor: Actor, action: Action): string | undefined {
  if (keptOut(settings, actor)) return outsiders('decide this step');
  if (!isListed(settings, task, actor)) return 'you are not a reviewer for this step';
  if (approves(action) && !settings.allowSelfApproval) {
    if (actor.id === task.requester) return 'you started this task, so someone else has to approve it';
    // In the requester's place, one stands where they do: their approval would be the requester's own.
    if (
      !listedThemselves(settings, task, actor) &&
      standsInFor(settings, actor.id).every((p) => p === task.requester)
    )
      return 'you decide here in place of the person who started this task, so someone else has to approve it';
  }
  return undefined;
}

/**
 * The groups worth asking the actor's surface about: none when their right does not hinge on a
 * group (listed as themselves, `requester` or `anyone`; or barred whatever the groups say), so
 * that a named reviewer decides even while a group lookup fails.
 */
export function groupsToAsk(settings: Rule, task: Task, actor: Actor): string[] {
  if (isListed(settings, task, actor)) return [];
  if (actor.external === true && keptOut(settings, actor)) return [];
  const known = new Set([...(actor.groups ?? []), ...(actor.unknownGroups ?? [])]);
  // The user groups the checkpoint names among its reviewers.
  return settings.reviewers.filter((r) => r.startsWith('S') && !known.has(r));
}

/**
 * The actor with `groups` asked of the directory, at once; one it could not answer for is noted as
 * unknown. Without a directory (a surface that has none, the terminal's) nothing is asked: the
 * groups count as not theirs. Called with no row locked.
 */
export async function askGroups(
  directory: GroupDirectory | undefined,
  actor: Actor,
  groups: string[],
  task?: Task,
): Promise<Actor> {
  if (!directory || !groups.length) return actor;
  const answers = await directory
    .memberOf(actor, groups, task)
    .catch((): GroupAnswers => ({ member: [], unanswered: groups }));
  return {
    ...actor,
    groups: [...(actor.groups ?? []), ...groups.filter((g) => answers.member.includes(g))],
    unknownGroups: [...(actor.unknownGroups ?? []), ...groups.filter((g) => answers.unanswered.includes(g))],
  };
}

/**
 * Whether the actor may decide, and if not, the true reason: a person whose right hinges on a
 * group Slack did not answer for (or on whether they are from outside, when Slack did not say)
 * is told to try again (`directory_unavailable`), not that they have no right; everyone else gets
 * `refusal`'s sentence.
 */
export function rightRefused(
  settings: Rule,
  task: Task,
  actor: Actor,
  action: Action,
): { code: 'not_allowed' | 'directory_unavailable'; message: string } | undefined {
  if (!refusal(settings, task, actor, action)) return undefined;
  const hoped: Actor = {
    ...actor,
    external: actor.external === 'unknown' ? undefined : actor.external,
    groups: [...(actor.groups ?? []), ...(actor.unknownGroups ?? [])],
  };
  const why = refusal(settings, task, hoped, action);
  if (why) return { code: 'not_allowed', message: `Sorry, ${why}.` };
  if (actor.external === 'unknown' && keptOut(settings, actor)) {
    const message = unsureMember('this step is not for guests or people from other organizations');
    return { code: 'directory_unavailable', message };
  }
  const groups = (actor.unknownGroups ?? []).filter((g) => settings.reviewers.includes(g));
  const message = `Sorry, Slack did not say whether you are in ${groups.map((g) => `<!subteam^${g}>`).join(' or ')} just now; try again in a minute.`;
  return { code: 'directory_unavailable', message };
}

/**
 * What the actor may do at a pending review: the actions it offers that its rules allow them (an
 * approval they already gave to a quorum does not count again), or, when none, the refusal's
 * words. For a surface that asks before it decides; the decision itself is checked again.
 */
export async function choicesAt(
  directory: GroupDirectory | undefined,
  review: Pick<Review, 'settings' | 'request' | 'approvals'>,
  task: Task,
  actor: Actor,
): Promise<{ actions: Action[]; refusal?: string }> {
  const who = await askGroups(directory, actor, groupsToAsk(review.settings, task, actor), task);
  const refused = (a: Action) => rightRefused(review.settings, task, who, a);
  const actions = review.request.actions.filter(
    (a) => !refused(a) && !(a === 'approve' && seatFilled(review.approvals, actor.id)),
  );
  if (actions.length) return { actions };
  // The refusal of an action the review offers, not of one it may not offer: at an approve-only
  // review a requester who may not approve their own work is told that (a reject would be theirs).
  const why = review.request.actions.map(refused).find(Boolean);
  return { actions, refusal: why?.message ?? 'Sorry, you have approved this already.' };
}

/** The rules that say who may steer a task: its pending reviews' and its workflow's checkpoints'. */
async function controlRules(db: Queryable, config: WorkflowsConfig, task: Task): Promise<Rule[]> {
  const configured = Object.values(workflowSettings(config, task.workflow).checkpoints);
  return [
    ...(await reviewsOf(db, task.id, 'pending')).map((r) => r.settings),
    ...(configured.length ? configured : [config.defaults.checkpoint]),
  ];
}

/**
 * The actor with the groups its right to steer hinges on asked (none when a rule takes them in
 * without one): called before a transaction, so that the check inside it never waits on Slack
 * with a row locked.
 */
export async function withControlGroups(
  directory: GroupDirectory | undefined,
  db: Queryable,
  config: WorkflowsConfig,
  task: Task,
  actor: Actor,
  what: ControlAction,
): Promise<Actor> {
  if (!directory || actor.operator || actor.id === task.requester) return actor;
  if (whoMay(config, task, what) !== 'reviewers') return actor;
  const rules = await controlRules(db, config, task);
  if (rules.some((rule) => !refusal(rule, task, actor, 'reject'))) return actor;
  const groups = [...new Set(rules.flatMap((rule) => groupsToAsk(rule, task, actor)))];
  return askGroups(directory, actor, groups, task);
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
 * Who may cancel, retry and redirect: the operator at the terminal always; else the requester or
 * whoever may reject a pending review or is named a reviewer by the workflow's checkpoints (a
 * redirect: as `redirect.who` says). That right, or `redirect.who: anyone`, holds for outsiders
 * only where a rule of the task lets them decide. Throws otherwise ('directory_unavailable' when
 * only what Slack did not answer stands in the way). Asks nothing of a surface: groups not already
 * resolved count as not a member.
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
  if (who !== 'nobody' && actor.id === task.requester) return;
  if (who === 'anyone') {
    // Anyone in the channel: a Slack Connect guest is in it too, and may not drop the goal
    // unless the task lets people from outside decide.
    if (!actor.external) return;
    const rules = await controlRules(db, config, task);
    if (rules.some((rule) => !keptOut(rule, actor))) return;
    const why = outsiders(`${what} this task`);
    if (actor.external === 'unknown') throw new SignoffError('directory_unavailable', unsureMember(why));
    throw new SignoffError('not_allowed', `Sorry, ${why}.`);
  }
  if (who === 'reviewers') {
    const rules = await controlRules(db, config, task);
    const refused = rules.map((rule) => rightRefused(rule, task, actor, 'reject'));
    if (refused.some((r) => !r)) return;
    const unanswered = refused.find((r) => r?.code === 'directory_unavailable');
    if (unanswered) throw new SignoffError('directory_unavailable', unanswered.message);
  }
  throw new SignoffError('not_allowed', `Sorry, ${ONLY[who].replace('{what}', what)}.`);
}
