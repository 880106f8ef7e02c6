/**
 * The review card: what is asked, the content (a markdown block), round and due time, the
 * reviewers pinged, and Approve / Revise / Reject. After the decision the same message is
 * updated to say who decided, when and with what feedback; the buttons are gone.
 */
import type { types } from '@slack/bolt';
import { contentHash } from '../../engine/content-hash.js';
import { approvalsNeeded, approversLeft, atDeadline } from '../../engine/sign-off-rules.js';
import { asDecided } from '../../engine/standard-interrupts.js';
import { type Action, approves, type Review, SYSTEM_ACTOR } from '../../engine/types.js';
import type { SlackMessage } from './messages.js';
import { escapeMrkdwn, LIMITS, markdownStart, neutralizePlain, truncate } from './text.js';

type KnownBlock = types.KnownBlock;

export const ACTION_IDS: Record<Action, string> = {
  approve: 'signoff_approve',
  edit: 'signoff_edit',
  revise: 'signoff_revise',
  reject: 'signoff_reject',
};

const DEFAULT_LABELS: Record<Action, string> = {
  approve: 'Approve',
  edit: 'Edit',
  revise: 'Revise',
  reject: 'Reject',
};
/** Room left in the card's markdown budget for the note that the content was cut. */
const BODY_BUDGET = LIMITS.markdownPerPayload - 200;

/** The button value: which review, checked again against the message it came from. */
/** What a button carries: its review and task, and a hash of the content shown (approve what you saw). */
export const buttonValue = (review: Pick<Review, 'id' | 'taskId' | 'request'>) =>
  JSON.stringify({ review: review.id, task: review.taskId, h: contentHash(review.request) });

/** `<!date^…>` shows the time in each reader's own time zone. */
export const slackDate = (iso: string) => {
  const seconds = Math.floor(new Date(iso).getTime() / 1000);
  return `<!date^${seconds}^{date_short_pretty} at {time}|${iso}>`;
};

/** The people to mention besides the reviewers: notify (the requester by default), less those already named. */
function notified(review: Review, requester: string): string {
  const named = new Set(review.settings.reviewers.map((r) => (r === 'requester' ? requester : r)));
  const extra = (review.settings.notify ?? ['requester'])
    .map((n) => (n === 'requester' ? requester : n))
    .filter((n, i, all) => !named.has(n) && all.indexOf(n) === i);
  return extra.length ? mentions(extra, requester) : '';
}

/** Reviewers and whom else the card tells, as mentions (each person once). */
const reviewersLine = (review: Review, requester: string) => {
  const also = notified(review, requester);
  return `Reviewers: ${mentions(review.settings.reviewers, requester)}${also ? ` · cc ${also}` : ''}`;
};

/** The people who approved, as mentions. */
const approvers = (list: { by: string }[], separator = ', ') => list.map((a) => `<@${a.by}>`).join(separator);

export function mentions(reviewers: string[], requester: string): string {
  const names = reviewers.map((r) =>
    r === 'anyone'
      ? 'anyone in this channel'
      : r === 'requester'
        ? `<@${requester}>`
        : r.startsWith('S')
          ? `<!subteam^${r}>`
          : `<@${r}>`,
  );
  return names.join(', ');
}

function head(review: Review, requester: string): KnownBlock[] {
  const r = review.request;
  const body = markdownStart(r.body.trim() || '(nothing to show)', BODY_BUDGET);
  const due = review.dueAt ? `due ${slackDate(review.dueAt)}${atTheDeadline(review, requester)}` : undefined;
  const facts = [`Round ${r.round}`, due].filter(Boolean).join(' · ');
  const quorum = approvalsNeeded(review.settings) > 1 ? [quorumLine(review, requester)] : [];
  return [
    {
      type: 'header',
      text: { type: 'plain_text', text: truncate(neutralizePlain(r.title), 150), emoji: true },
    },
    {
      type: 'markdown',
      text: body.cut ? `${body.text}\n\n_…cut here; the full text is in the messages above._` : body.text,
    } as KnownBlock,
    {
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `${facts} · ${reviewersLine(review, requester)}` }],
    },
    ...quorum.map((text): KnownBlock => ({ type: 'context', elements: [{ type: 'mrkdwn', text }] })),
  ];
}

/** What the deadline will do, in the card's words: " (rejected automatically if nobody decides)". */
function atTheDeadline(review: Review, requester: string): string {
  const step = atDeadline(review.settings);
  if (step.kind === 'escalate')
    return ` (then ${mentions(step.to, requester)} ${step.to.length > 1 ? 'are' : 'is'} asked too)`;
  const fallback = { approve: 'approved', reject: 'rejected', cancel: 'cancelled', remind: undefined }[
    step.action
  ];
  return fallback ? ` (${fallback} automatically if nobody decides)` : '';
}

/** N of M: how many approvals so far and from whom, who may still approve, and that a reject ends it. */
export function quorumLine(review: Review, requester: string): string {
  const needed = approvalsNeeded(review.settings);
  // The approval that completed the quorum is in the decision only.
  const got: { by: string }[] = review.decision?.approvals ?? review.approvals ?? [];
  const by = got.length ? `: ${approvers(got)}` : '';
  const barred = [...got.map((a) => a.by), ...(review.settings.allowSelfApproval ? [] : [requester])];
  const others = [...new Set(barred)].map((u) => `<@${u}>`).join(', ');
  const still = `${mentions(review.settings.reviewers, requester)}${others ? ` (not ${others})` : ''}`;
  if (review.status !== 'pending') return `:ballot_box_with_check: ${got.length} of ${needed} approvals${by}`;
  const left = approversLeft(review.settings, got, requester);
  const stuck =
    left !== undefined && left < needed - got.length
      ? `\n:warning: Only ${left} of the reviewers named can still approve, so this cannot reach ${needed} approvals: reject or revise it, or change the checkpoint's reviewers.`
      : '';
  return `:ballot_box_with_check: *${got.length} of ${needed} approvals*${by} · still may approve: ${still} · one Reject ends the review${stuck}`;
}

/**
 * The open card, with the buttons the review allows. `decides`: the review content its buttons decide on, when the card shows less
 * (a plainer card after Slack refused the full one: the content stays in the thread's record).
 */
export function reviewCard(
  review: Review,
  requester: string,
  decides: Review['request'] = review.request,
): SlackMessage {
  const r = review.request;
  const label = (a: Action) => truncate(r.labels[a] ?? DEFAULT_LABELS[a], 75);
  const buttons = r.actions.map((action) => ({
    type: 'button' as const,
    action_id: ACTION_IDS[action],
    text: { type: 'plain_text' as const, text: label(action), emoji: true },
    value: buttonValue({ ...review, request: decides }),
    ...(action === 'approve' ? { style: 'primary' as const } : {}),
    ...(action === 'reject'
      ? {
          style: 'danger' as const,
          confirm: {
            title: { type: 'plain_text' as const, text: 'Reject this?' },
            text: {
              type: 'plain_text' as const,
              text: truncate(`This ends the task: ${neutralizePlain(r.title)}`, 300),
            },
            confirm: { type: 'plain_text' as const, text: label('reject') },
            deny: { type: 'plain_text' as const, text: 'Keep reviewing' },
            style: 'danger' as const,
          },
        }
      : {}),
  }));
  return {
    text: escapeMrkdwn(`Review needed: ${truncate(r.title, 200)}`),
    blocks: [
      ...head(review, requester),
      { type: 'actions', block_id: `review:${review.id}`.slice(0, 255), elements: buttons },
    ],
  };
}

const VERB: Record<Action, string> = {
  approve: ':white_check_mark: Approved',
  edit: ':pencil2: Approved with edits',
  revise: ':pencil2: Revision asked',
  reject: ':no_entry_sign: Rejected',
};

/** The card once decided (or cancelled): the same content, the outcome instead of buttons. */
export function decidedCard(
  review: Review,
  requester: string,
  closed?: { by: string; reason: string },
): SlackMessage {
  const d = review.decision;
  // An approval of an edit counted towards the quorum approved the edited call.
  const verb =
    d && (d.action === 'edit' || (d.action === 'approve' && review.request.edit)) ? VERB.edit : undefined;
  const by = closed && closed.by !== SYSTEM_ACTOR ? ` by <@${closed.by}>` : '';
  const why = closed ? `: ${escapeMrkdwn(closed.reason)}${by}` : '';
  const given = review.approvals ?? [];
  const who = d?.automatic
    ? given.length
      ? `automatically: ${given.length} of ${approvalsNeeded(review.settings)} approvals (${approvers(given)}) when time ran out (${escapeMrkdwn(d.automatic)})`
      : `automatically: nobody decided (${escapeMrkdwn(d.automatic)})`
    : d?.approvals
      ? `by ${approvers(d.approvals, ' and ')} (${d.approvals.length} approvals)`
      : `by <@${d?.by ?? review.decidedBy}>`;
  // A reject or revise on a review that needs several approvals: what became of the approvals.
  const ended =
    d && !approves(d.action) && approvalsNeeded(review.settings) > 1
      ? `\n_${d.action === 'reject' ? 'One reject ends a review that needs several approvals.' : 'A revision sends it back: the next round needs its approvals again.'}_`
      : '';
  const outcome =
    review.status === 'cancelled' || !d
      ? `:heavy_minus_sign: Closed without a decision${why}`
      : `${verb ?? VERB[d.action]} ${who} ${slackDate(d.at)}${ended}${d.feedback ? `\n>${escapeMrkdwn(truncate(d.feedback, 2500)).replace(/\n/g, '\n>')}` : ''}`;
  return {
    text: escapeMrkdwn(`${review.request.title}: ${d ? d.action : 'closed'}`),
    blocks: [
      // What was approved: with an edit, the edited call.
      ...head({ ...review, request: asDecided(review.request, d) }, requester),
      { type: 'section', text: { type: 'mrkdwn', text: truncate(outcome, LIMITS.sectionText) } },
    ],
  };
}

/** A reminder in the thread: the reviewers pinged again, and the deadline (or that it passed). */
export function reminderMessage(review: Review, requester: string, overdue: boolean): SlackMessage {
  const title = escapeMrkdwn(truncate(review.request.title, 200));
  const also = notified(review, requester);
  // Whoever approved already has nothing left to do here.
  const approved = new Set((review.approvals ?? []).map((a) => a.by));
  const waitingFor = review.settings.reviewers.filter(
    (r) => !approved.has(r) && !(r === 'requester' && approved.has(requester)),
  );
  const who = `${mentions(waitingFor.length ? waitingFor : review.settings.reviewers, requester)}${also ? ` (${also})` : ''}`;
  const text = overdue
    ? `:alarm_clock: ${who}: *${title}* is past its deadline and still waiting for a decision.`
    : `:alarm_clock: Reminder for ${who}: *${title}* is waiting for a decision${review.dueAt ? `, due ${slackDate(review.dueAt)}` : ''}.`;
  return {
    text: escapeMrkdwn(`Reminder: ${truncate(review.request.title, 200)} is waiting for a decision`),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } }],
  };
}

/** The thread's ping when the deadline escalates: why, who is asked now, and who must be invited first. */
export function escalatedMessage(
  e: { review: Review; to: string[]; reason: string },
  requester: string,
  outside: string[] = [],
): SlackMessage {
  const title = escapeMrkdwn(truncate(e.review.request.title, 200));
  const due = e.review.dueAt ? ` It is now due ${slackDate(e.review.dueAt)}.` : '';
  const invite = outside.length
    ? `\n:warning: ${mentions(outside, requester)} ${outside.length === 1 ? 'is' : 'are'} not in this channel and cannot see the card: invite ${outside.length === 1 ? 'them' : 'each'} with \`/invite\`.`
    : '';
  const text = `:arrow_double_up: ${escapeMrkdwn(e.reason)}, so *${title}* is escalated to ${mentions(e.to, requester)}: please review the card above.${due}${invite}`;
  return {
    text: escapeMrkdwn(`Escalated: ${truncate(e.review.request.title, 200)}`),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } }],
  };
}
