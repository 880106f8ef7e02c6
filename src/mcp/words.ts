/**
 * A review as an agent reads it while it waits (a progress notification's message) and once it is
 * answered (the tool result's text, beside the view as structured content). Pure.
 */
import type { AskView } from '../api/ask-shapes.js';
import { seatFilled } from '../engine/index.js';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "U0BOB, U0EVE (for U0CAT) and U0DAN": a list as a sentence names it. */
const listed = (names: string[]) =>
  names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '');

type Given = NonNullable<AskView['approvals']>['given'];

/**
 * Whom it still waits on, as the view names them (Slack user ids, a group, `anyone`): the seats an
 * approval could still fill, by the engine's rule (`seatFilled`): not a person who approved, nor
 * one whose delegate approved in their place (theirs would not count again, as the card says). A
 * group stays: the engine counts each member as themselves (a member's approval fills no seat of
 * the group's), so another member's approval still counts. `requester` is never named: at a door
 * the requester is the agent asking, who waits on the review and decides nothing (api/asks.ts).
 */
function awaited(reviewers: readonly string[], given: Given): string {
  if (reviewers.includes('anyone')) return 'anyone in the channel';
  const rest = reviewers.filter((r) => r !== 'requester' && !seatFilled(given, r));
  return rest.length ? rest.join(', ') : 'a reviewer';
}

/** While it waits: "waiting for U0CAT, U0DAN; 1 of 2 approvals (U0BOB approved)". */
export function waitingWords(view: AskView): string {
  if (view.status === 'starting') return `posting the review in ${view.channel}`;
  if (view.status === 'pending') {
    const given = view.approvals?.given ?? [];
    const reviewers = view.reviewers?.length ? awaited(view.reviewers, given) : 'a reviewer';
    const names = given.map((a) => (a.for ? `${a.by} for ${a.for}` : a.by));
    const so = names.length ? ` (${listed(names)} approved)` : '';
    const approvals = view.approvals
      ? `; ${view.approvals.count} of ${plural(view.approvals.needed, 'approval', 'approvals')}${so}`
      : '';
    return `waiting for ${reviewers}${approvals}`;
  }
  return view.status;
}

/**
 * Who decided. An approval names everyone whose approval made it (a model reading "by U0CAT" alone
 * would think one person approved what needed two), and whom a delegate stood in for.
 */
function decidedBy(d: NonNullable<AskView['decision']>): string {
  if (d.automatic) return `automatically (${d.automatic})`;
  if (!d.approvals.length) return `by ${d.by}`;
  const names = d.approvals.map((a) => (a.for ? `${a.by} (for ${a.for})` : a.by));
  const count = d.approvals.length > 1 ? ` (${d.approvals.length} approvals)` : '';
  return `by ${listed(names)}${count}`;
}

/** The answer in a sentence or two, for a model that reads text rather than structured content. */
export function answerWords(view: AskView): string {
  const d = view.decision;
  const by = d ? decidedBy(d) : '';
  const feedback = d?.feedback ? `\nFeedback: ${d.feedback}` : '';
  switch (view.status) {
    case 'approved':
      return d?.arguments
        ? `Approved ${by}${d.edited ? ' with edited arguments' : ''}. Run the tool call with these arguments:\n${JSON.stringify(d.arguments, null, 2)}${feedback}`
        : `Approved ${by}.${feedback}`;
    case 'revised':
      return `Changes requested ${by}; revise and ask again.${feedback}`;
    case 'rejected':
      return `Rejected ${by}; do not go ahead.${feedback}`;
    case 'cancelled':
      return `The review was cancelled (${view.reason ?? 'cancelled'}).`;
    case 'failed':
      return `The review could not be held: ${view.reason ?? 'it failed'}.`;
    default:
      return `Review ${view.id} is ${waitingWords(view)}. Check it with get_signoff { "id": "${view.id}" }.`;
  }
}
