/**
 * A checkpoint's sign-off rules, as pure functions the engine applies inside its transactions:
 * how many approvals a review needs and what one more does (N of M), and what its deadline does
 * (its own action, or escalation first), and the rules on what a review asks.
 */
import { type CheckpointSettings, isPersonId, type ReviewRule } from '../config/checkpoint.js';
import { evaluateCondition, type ReviewFacts } from '../config/conditions.js';
import { callsAsEdited, toolCallsOf } from '../workflows/protocol/standard-interrupts.js';
import type { ToolCall } from '../workflows/protocol/tool-call-body.js';
import type { Approval, Review, ReviewRequest, ReviewSettings, Task } from './types.js';

/** How many different people must approve. */
export const approvalsNeeded = (settings: Pick<ReviewSettings, 'approvals'>) => settings.approvals ?? 1;

export type ApprovalOutcome =
  /** This person's approval was counted already (a double click): nothing changes. */
  | { kind: 'counted_already'; count: number; needed: number }
  /** Counted; the review waits for more. */
  | { kind: 'counted'; approvals: Approval[]; needed: number }
  /** Counted, and the quorum is reached: the review is approved by all of `approvals`. */
  | { kind: 'quorum'; approvals: Approval[] };

/** What one more approval by `approval.by` does to a review (a person counts once). */
export function addApproval(
  review: Pick<Review, 'approvals'> & {
    settings: Pick<ReviewSettings, 'approvals'> & Partial<Pick<ReviewSettings, 'delegates'>>;
  },
  approval: Approval,
): ApprovalOutcome {
  const needed = approvalsNeeded(review.settings);
  const so = review.approvals ?? [];
  // Someone away and the one deciding in their place are one person towards the quorum: the seat
  // an approval filled is kept on it (`for`, which the caller sets); one recorded before seats
  // were kept is matched through the delegates of now.
  const standIn = review.settings.delegates ?? {};
  const seat = (a: Approval) => a.for ?? a.by;
  const same = (a: Approval, b: Approval) =>
    a.by === b.by || seat(a) === seat(b) || (!a.for && (standIn[a.by] === b.by || standIn[b.by] === a.by));
  if (so.some((a) => same(a, approval))) return { kind: 'counted_already', count: so.length, needed };
  const approvals = [...so, approval];
  return approvals.length >= needed ? { kind: 'quorum', approvals } : { kind: 'counted', approvals, needed };
}

/** Whether `id`'s seat is filled: by their own approval, or by one given in their place. */
export const seatFilled = (approvals: readonly { by: string; for?: string }[], id: string) =>
  approvals.some((a) => a.by === id || a.for === id);

/**
 * How many more people could still approve, when the reviewers are all named people (undefined
 * when `anyone` or a group may: nobody can count those). Below the approvals still needed, the
 * review cannot pass, and its card should say so.
 */
export function approversLeft(
  settings: Pick<ReviewSettings, 'reviewers' | 'allowSelfApproval'>,
  approvals: { by: string; for?: string }[],
  requester: string,
): number | undefined {
  const people = new Set<string>();
  for (const r of settings.reviewers) {
    if (r === 'anyone' || r.startsWith('S')) return undefined;
    people.add(r === 'requester' ? requester : r);
  }
  if (!settings.allowSelfApproval) people.delete(requester);
  for (const a of approvals) {
    people.delete(a.by);
    if (a.for) people.delete(a.for);
  }
  return people.size;
}

export type DeadlineStep =
  /** Step `step` (1 the first): add `to` as reviewers and wait `afterSeconds` more. */
  | { kind: 'escalate'; step: number; to: string[]; afterSeconds: number; waitedSeconds: number }
  /** The checkpoint's action; `waitedSeconds` is how long the review waited in all. */
  | { kind: 'act'; action: 'approve' | 'reject' | 'cancel' | 'remind'; waitedSeconds: number };

/** Escalation steps taken so far. */
export const stepsTaken = (settings: Pick<ReviewSettings, 'escalated'>) => settings.escalated ?? 0;

/** What a review's deadline does now: the next escalation step (when configured), then the final action. */
export function atDeadline(
  settings: Pick<ReviewSettings, 'onTimeout' | 'timeoutSeconds' | 'escalation' | 'escalated'>,
): DeadlineStep {
  const timeout = settings.timeoutSeconds ?? 0;
  const e = settings.escalation;
  if (settings.onTimeout !== 'escalate' || !e?.steps.length) {
    // A review opened with `escalate` but no steps (never written by the config) reminds.
    const action = settings.onTimeout === 'escalate' ? 'remind' : settings.onTimeout;
    return { kind: 'act', action, waitedSeconds: timeout };
  }
  const taken = stepsTaken(settings);
  const waitedSeconds = timeout + e.steps.slice(0, taken).reduce((sum, s) => sum + s.afterSeconds, 0);
  const next = e.steps[taken];
  if (next)
    return { kind: 'escalate', step: taken + 1, to: next.to, afterSeconds: next.afterSeconds, waitedSeconds };
  return { kind: 'act', action: e.finalAction, waitedSeconds };
}

/** The reviewers once escalated: the old ones and `to`, each once. */
export const escalatedReviewers = (reviewers: string[], to: string[]) => [...new Set([...reviewers, ...to])];

/**
 * Why a deadline may not approve this review on nobody's behalf, whatever its checkpoint says
 * (undefined: it may). A tool call runs only when a person clicked; content whose card could not
 * be shown (`shown` false) was seen by nobody. The review then keeps waiting for a person.
 */
export function timerMayNotApprove(
  request: Pick<ReviewRequest, 'origin' | 'edit'>,
  shown = true,
): string | undefined {
  if (request.origin) return 'a tool call goes ahead only when a person approves it';
  if (!shown) return 'its card could not show what it asks, so nobody saw what would be approved';
  // Only the card as asked is known to have been shown; an edit's is another.
  if (request.edit)
    return 'an edit changed what it asks, and a timer approves only what a card was known to show';
  return undefined;
}

/**
 * A checkpoint's rules made stricter by what a request asks (`request.rules`: a review asked
 * through a door): its reviewers among the checkpoint's (anyone, if it allows anyone), at least
 * its approvals, at most its timeout. Stricter by effect, not by number: where the deadline
 * approves, an earlier (or a new) deadline is a sooner approval and more approvals a rule the
 * timer would pass with none, so both are refused; nor may a quorum need more people than it
 * names. What is refused is not applied, and `refused` says why in a sentence each (a door
 * refuses such a request before it starts; a config file changed since only drops the rule).
 */
export function narrowRules<
  S extends Pick<ReviewSettings, 'reviewers' | 'approvals' | 'timeoutSeconds' | 'onTimeout' | 'escalation'>,
>(settings: S, rules: ReviewRequest['rules']): { settings: S; refused: string[] } {
  if (!rules) return { settings, refused: [] };
  const refused: string[] = [];
  const out = { ...settings };
  const timerApproves =
    settings.onTimeout === 'approve' ||
    (settings.onTimeout === 'escalate' && settings.escalation?.finalAction === 'approve');
  if (rules.reviewers) {
    const anyone = settings.reviewers.includes('anyone');
    const outside = rules.reviewers.filter((r) => !anyone && !settings.reviewers.includes(r));
    const kept = rules.reviewers.filter((r) => !outside.includes(r));
    if (outside.length)
      refused.push(
        `${outside.join(', ')} ${outside.length > 1 ? 'are not reviewers' : 'is not a reviewer'} of this checkpoint (its reviewers: ${settings.reviewers.join(', ')}).`,
      );
    // Those still allowed decide (never more people than asked for).
    if (kept.length) out.reviewers = [...new Set(kept)];
  }
  if (rules.approvals !== undefined) {
    const least = approvalsNeeded(settings);
    const people = out.reviewers.every(isPersonId) ? out.reviewers.length : Number.POSITIVE_INFINITY;
    if (rules.approvals < least) refused.push(`This checkpoint needs at least ${least} approvals.`);
    else if (rules.approvals > 1 && timerApproves)
      refused.push(
        "This checkpoint's deadline approves, so it takes one approval: a timer must never pass a rule of several people.",
      );
    else if (rules.approvals > people)
      refused.push(
        `${rules.approvals} approvals need at least as many reviewers; ${people} ${people === 1 ? 'is' : 'are'} named.`,
      );
    else out.approvals = rules.approvals;
  }
  if (rules.timeoutSeconds !== undefined) {
    const most = settings.timeoutSeconds;
    if (timerApproves)
      refused.push(
        "This checkpoint's deadline approves: an earlier one would approve sooner, so it cannot be set.",
      );
    else if (most !== undefined && rules.timeoutSeconds > most)
      refused.push(`This checkpoint's timeout is at most ${most} seconds.`);
    else out.timeoutSeconds = rules.timeoutSeconds;
  }
  return { settings: out, refused };
}

/** A checkpoint rule that fired on a review: what it did, and why it fired when its condition could not be told. */
export interface FiredRule {
  name: string;
  effect: string;
  error?: string;
}

/** What a review asks, as a rule's condition reads it: one set of facts per tool call (one for content). */
export function reviewFacts(
  task: Task,
  request: ReviewRequest,
  state?: Record<string, unknown>,
  calls: ToolCall[] | undefined = toolCallsOf(request),
): ReviewFacts[] {
  const channel = task.origin.channel;
  const base = {
    workflow: task.workflow,
    checkpoint: request.kind,
    channel: typeof channel === 'string' ? channel : '',
    requester: task.requester,
    door: task.door ?? '',
    title: request.title,
    body: request.body,
    input: task.input ?? {},
    // What JSON holds of the state (a message object's methods and cycles stay out).
    output: state ? jsonOf(state) : {},
  };
  if (!calls?.length) return [{ ...base, tool: '', args: {} }];
  return calls.map((call) => ({ ...base, tool: call.name, args: call.args }));
}

function jsonOf(value: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

const effectOf = (rule: ReviewRule) =>
  rule.approve
    ? 'approved by the rule'
    : [
        rule.approvals !== undefined && `${rule.approvals} approval${rule.approvals > 1 ? 's' : ''}`,
        rule.reviewers && `reviewers ${rule.reviewers.join(', ')}`,
      ]
        .filter(Boolean)
        .join('; ');

/**
 * The checkpoint's rules (`settings.rules`) applied to what a review asks. A rule that asks for
 * people fires when its condition holds for any of the review's calls; one that approves, or
 * lowers the approvals, only when it holds for every call. A condition that cannot be told (an
 * argument the call does not have, a number sent as text) fires every rule that asks for people
 * and none that approves or lowers the approvals: a missing value never lowers the bar. When several fire, the most approvals any asks for and the last
 * one's reviewers apply, and the review is approved by a rule only when none that fired asks for
 * people. `approvedBy`: the name of the rule that approves it; `asksPeople`: a rule that fired
 * asks for people (then no standing rule approves the review either).
 */
export function applyRules(
  settings: CheckpointSettings,
  facts: ReviewFacts[],
): { settings: ReviewSettings; fired: FiredRule[]; approvedBy?: string; asksPeople: boolean } {
  const { rules, ...out } = settings;
  const fired: (FiredRule & { rule: ReviewRule })[] = [];
  for (const rule of rules) {
    const loosens = rule.approve || (rule.approvals ?? Number.POSITIVE_INFINITY) < settings.approvals;
    const values = facts.map((f) => evaluateCondition(rule.when, f));
    const error = values.find((v): v is { error: string } => typeof v === 'object')?.error;
    // Fail closed: a condition that cannot be told fires every rule that asks for people.
    const holds = loosens
      ? values.every((v) => v === true)
      : values.some((v) => v === true) || error !== undefined;
    if (!holds) continue;
    // Fired only because it could not be told: it may raise the bar, never open the review to
    // people the checkpoint does not name (its reviewers apply only where they narrow them).
    const told = values.some((v) => v === true);
    const widens =
      !settings.reviewers.includes('anyone') &&
      (rule.reviewers ?? []).some((r) => !settings.reviewers.includes(r));
    const applied: ReviewRule = !told && widens ? { ...rule, reviewers: undefined } : rule;
    fired.push({ rule: applied, name: rule.name, effect: effectOf(applied), ...(error && { error }) });
  }
  const asking = fired.filter((f) => !f.rule.approve);
  const approvals = asking.flatMap((f) => (f.rule.approvals === undefined ? [] : [f.rule.approvals]));
  if (approvals.length) out.approvals = Math.max(...approvals);
  const reviewers = asking.findLast((f) => f.rule.reviewers)?.rule.reviewers;
  if (reviewers) out.reviewers = reviewers;
  return {
    settings: fired.length ? { ...out, ruled: fired.map((f) => f.name) } : out,
    fired: fired.map(({ rule, ...f }) => f),
    approvedBy: asking.length ? undefined : fired.find((f) => f.rule.approve)?.name,
    asksPeople: asking.length > 0,
  };
}

/**
 * Why an Edit may not be taken: the calls as edited make a rule that asks for people fire which
 * the calls as asked did not (an amount raised past a tier): its checkpoint's rules were applied to
 * what was asked, and a bigger ask needs them again. Undefined when the edit is within them.
 */
export function editOutsideRules(
  settings: CheckpointSettings,
  review: Pick<Review, 'request' | 'settings'>,
  task: Task,
  values: Record<string, string>,
): string | undefined {
  const edited = callsAsEdited(review.request, values);
  if (!edited?.length) return undefined;
  // The calls as asked and as edited, read alike (no state here: a rule on `output` is the same
  // for both); what only the edit fires and asks more of people is new.
  const asking = (calls: ToolCall[] | undefined) =>
    applyRules(settings, reviewFacts(task, review.request, undefined, calls)).fired.filter((f) => {
      const rule = settings.rules.find((r) => r.name === f.name);
      return rule && !rule.approve && ((rule.approvals ?? 0) > settings.approvals || rule.reviewers);
    });
  const before = new Set(asking(undefined).map((f) => f.name));
  const more = asking(edited).filter((f) => !before.has(f.name));
  if (!more.length) return undefined;
  const named = more.map((f) => `"${f.name}" (${f.effect})`).join(', ');
  return `This edit is not taken: the call as edited falls under the checkpoint's rule ${named}, which the call as asked did not. Reject it, or send it back for the agent to ask again.`;
}
