/**
 * The review card: what is asked, the content (a markdown block), round and due time, the
 * reviewers pinged, and Approve / Revise / Reject. After the decision the same message is
 * updated to say who decided, when and with what feedback; the buttons are gone.
 *
 * Approve what you saw: content too long for a card is posted whole in the thread just before it
 * (reviewTextMessages), and the card shows its beginning and says how much more is in those
 * posts. Content an edit changed is posted again, below the card, which then points there. A
 * card that cannot show the content at all (a plain one, after Slack refused the full card, or
 * before the changed content is posted) offers no Approve. A title longer than its header holds
 * (once its mentions are neutralized) is given whole on a line under the header.
 */
import type { types } from '@slack/bolt';
import {
  type Action,
  approvalsNeeded,
  approversLeft,
  approves,
  asDecided,
  atDeadline,
  contentHash,
  type Decision,
  type Review,
  type ReviewRequest,
  SYSTEM_ACTOR,
  timerMayNotApprove,
  titleNamesRound,
} from '../../engine/index.js';
import { SIGNOFF_FAILED } from '../../errors.js';
import { claimLines, withPolicyButtons } from './card-policy.js';
import type { SlackMessage } from './messages.js';
import { mentions, notified, slackDate } from './people.js';
import { DEFAULT_LABELS, rejectConfirm } from './reject-confirm.js';
import {
  blockTextRoom,
  escapeMrkdwn,
  LIMITS,
  markdownParts,
  markdownStart,
  neutralizePlain,
  truncate,
} from './text.js';

type KnownBlock = types.KnownBlock;

export const ACTION_IDS: Record<Action, string> = {
  approve: 'signoff_approve',
  edit: 'signoff_edit',
  revise: 'signoff_revise',
  reject: 'signoff_reject',
};

/**
 * A card's text budget (Slack counts all of a message's block text together, and its blocks): the
 * content's room, with the note saying where the rest is, and caps on everything else a card may
 * carry. The content's room is fixed, so that whether the full text goes to the thread never
 * depends on how long the reviewers' line or the feedback is: a decided card's five blocks (header
 * 150, content 7,000, two context lines of 600, the outcome) stay within blockTextRoom(5); a sixth,
 * the whole title when the header cannot hold it, is taken from the outcome's room.
 */
const CARD_BODY = 7000;
const CARD_NOTE = 250;
const CARD_CONTEXT = 600;
/** Slack's limit on a header's text. */
const HEADER = 150;
const CARD_OUTCOME = blockTextRoom(5) - (HEADER + CARD_BODY + 2 * CARD_CONTEXT);
/** Each thread post of a long review's full text: a heading line and one part of the text (two blocks). */
const TEXT_PART = blockTextRoom(2) - 500;

/**
 * The content as written. Every post neutralizes it after cutting (markdownStart, markdownParts):
 * a cut made in already neutralized text could leave a code span open and free a link inside it.
 */
const content = (r: ReviewRequest) => r.body.trim() || '(nothing to show)';

/** Whether a review's content is longer than its card shows, so that it goes whole to the thread first. */
export const longerThanCard = (review: Pick<Review, 'request'>) =>
  markdownStart(content(review.request), CARD_BODY).cut;

/**
 * A card Slack refused for good comes back plain: the title and a warning instead of the content.
 * It cannot show what would be approved, so it has no Approve; `code` is Slack's error (or
 * SIGNOFF_FAILED), when known.
 */
export interface PlainCard {
  code?: string;
}

/** A context line, within the card's budget. */
const contextLine = (text: string): KnownBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: truncate(text, CARD_CONTEXT) }],
});

/**
 * What a button carries: its review and task, and a hash of the content shown (approve what you
 * saw); `more`, what one kind of button adds (a reply question's reply, Revise's ask).
 */
export const buttonValue = (
  review: Pick<Review, 'id' | 'taskId' | 'request'>,
  more: Record<string, string> = {},
) => JSON.stringify({ review: review.id, task: review.taskId, h: contentHash(review.request), ...more });

/** Reviewers and whom else the card tells, as mentions (each person once). */
const reviewersLine = (review: Review, requester: string) => {
  const also = notified(review, requester);
  return `Reviewers: ${mentions(review.settings.reviewers, requester)}${also ? ` · cc ${also}` : ''}`;
};

/** The people who approved, as mentions. */
/** Who approved: "@dan (for @ann)" where one stood in for a named reviewer away. */
const approvers = (list: { by: string; for?: string }[], separator = ', ') =>
  list.map((a) => `<@${a.by}>${a.for ? ` (for <@${a.for}>)` : ''}`).join(separator);

/** "by rule #4 (proposed by @alice, approved by @bob and @carol)", or a config file's rule by name. */
function byRule(rule: NonNullable<Decision['rule']>): string {
  if (rule.id === undefined) return `by the config file's rule "${escapeMrkdwn(rule.name)}"`;
  const approved = rule.approvedBy?.length
    ? `, approved by ${approvers(
        rule.approvedBy.map((by) => ({ by })),
        ' and ',
      )}`
    : '';
  return `by rule #${rule.id} (proposed by <@${rule.proposedBy}>${approved})`;
}

/**
 * The title on a line of its own, when the header cannot hold all of it: a title fits a header
 * before it is neutralized (150 characters), but each mention or broadcast in it gains a
 * zero-width space, and a header cut then hides the title's end, which the decision counts for
 * (contentHash) as much as the content. plain_text, as in the header: shown as typed.
 */
const titleInFull = (title: string) => {
  const shown = neutralizePlain(title);
  return shown.length > HEADER ? `Title in full: ${shown}` : undefined;
};

/** The header, and the whole title under it when the header cannot hold it. */
function titleBlocks(title: string): KnownBlock[] {
  const header: KnownBlock = {
    type: 'header',
    text: { type: 'plain_text', text: truncate(neutralizePlain(title), HEADER), emoji: true },
  };
  const whole = titleInFull(title);
  return whole
    ? [header, { type: 'context', elements: [{ type: 'plain_text', text: whole, emoji: true }] }]
    : [header];
}

/** Which edit the content is, when several were posted below a card: " (edit 2)". */
const edition = (r: ReviewRequest) => (r.edit ? ` (edit ${r.edit.n})` : '');

/**
 * The posts that carry a review's whole content ahead of its card, when the card cannot show all
 * of it (none when it can). Posted just before the card, each once, so that "in the messages
 * above" on the card is true, also for content that is never said in the thread (a tool call).
 * `below`: posted after the card, for content an edit changed.
 */
export function reviewTextMessages(review: Pick<Review, 'request'>, below = false): SlackMessage[] {
  if (!longerThanCard(review)) return [];
  const parts = markdownParts(content(review.request), TEXT_PART);
  const title = truncate(review.request.title, 150);
  const card = below
    ? `as changed at review${edition(review.request)}, for the review card above`
    : 'for the review card below';
  return parts.map((part, i) => {
    const which = `part ${i + 1} of ${parts.length}`;
    return {
      text: escapeMrkdwn(`The full text of "${title}" (${which})`),
      blocks: [
        {
          type: 'context',
          elements: [
            {
              type: 'mrkdwn',
              text: `:page_facing_up: The full text of *${escapeMrkdwn(title)}*, ${card} (${which})`,
            },
          ],
        },
        { type: 'markdown', text: part } as KnownBlock,
      ],
    };
  });
}

/** The content on the card: all of it, or its beginning and how much more the posts hold (above, or `below`). */
function bodyBlock(review: Review, below: boolean): KnownBlock {
  const body = content(review.request);
  const whole = markdownStart(body, CARD_BODY);
  if (!whole.cut) return { type: 'markdown', text: whole.text } as KnownBlock;
  const start = markdownStart(body, CARD_BODY - CARD_NOTE);
  const shown = start.text;
  const hidden = body.length - start.kept;
  const posts = reviewTextMessages(review).length;
  const side = below ? 'below' : 'above';
  const where = posts === 1 ? `the message ${side}` : `the ${posts} messages ${side}`;
  const all = below ? `the whole text as it is now${edition(review.request)}` : 'the whole text';
  const note = `_${hidden.toLocaleString('en-US')} more characters are not shown here: ${all} is in ${where}._`;
  return { type: 'markdown', text: `${shown}\n\n${note}` } as KnownBlock;
}

/**
 * Why something could not be shown, in a few words: Slack's error code, or that signoff itself
 * failed (whose error text is for the log, never for people).
 */
export const notShownBecause = (code: string | undefined): string =>
  !code
    ? ''
    : code === SIGNOFF_FAILED
      ? ' (signoff could not show it; its log says why)'
      : ` (Slack said \`${escapeMrkdwn(truncate(code, 100))}\`)`;

/** Instead of the content on a plain card: why it is not here, where it is, and what can be done. */
function plainBlock(review: Review, plain: PlainCard): KnownBlock {
  const why = notShownBecause(plain.code);
  const left = plainActions(review.request);
  const can = left.length
    ? ` It can still be ${left.map((a) => (a === 'revise' ? 'sent back for changes' : 'rejected')).join(' or ')} here.`
    : '';
  return {
    type: 'section',
    text: {
      type: 'mrkdwn',
      text: truncate(
        `:warning: This review could not be shown here${why}, so it cannot be approved here: nobody would see what they approve. It is kept in signoff: \`signoff events ${escapeMrkdwn(review.taskId)}\`.${can}`,
        LIMITS.sectionText,
      ),
    },
  };
}

/**
 * The buttons of a plain card: never Approve, nor a Revise that carries a form (an edit of a tool
 * call's arguments approves the call as edited).
 */
export const plainActions = (r: ReviewRequest): Action[] =>
  r.actions.filter((a) => !approves(a) && !(a === 'revise' && r.fields.length));

function head(review: Review, requester: string, plain?: PlainCard, below = false): KnownBlock[] {
  const r = review.request;
  const due = review.dueAt
    ? `due ${slackDate(review.dueAt)}${atTheDeadline(review, requester, !plain)}`
    : undefined;
  // A title that names its round ("… (cycle 2)") is not followed by "Round 2": one word for it.
  const round = titleNamesRound(r) ? undefined : `Round ${r.round}`;
  const quorum = approvalsNeeded(review.settings) > 1 ? [quorumLine(review, requester)] : [];
  return [
    ...titleBlocks(r.title),
    plain ? plainBlock(review, plain) : bodyBlock(review, below),
    contextLine([round, due, reviewersLine(review, requester)].filter(Boolean).join(' · ')),
    ...quorum.map(contextLine),
  ];
}

/**
 * What the deadline will do, in the card's words: " (rejected automatically if nobody decides)".
 * Nothing is said of an approval the timer will not make (a tool call; a card that shows nothing).
 */
function atTheDeadline(review: Review, requester: string, shown: boolean): string {
  const step = atDeadline(review.settings);
  if (step.kind === 'escalate')
    return ` (then ${mentions(step.to, requester)} ${step.to.length > 1 ? 'are' : 'is'} asked too)`;
  if (step.action === 'approve' && timerMayNotApprove(review.request, shown)) return '';
  const fallback = { approve: 'approved', reject: 'rejected', cancel: 'cancelled', remind: undefined }[
    step.action
  ];
  return fallback ? ` (${fallback} automatically if nobody decides)` : '';
}

/** N of M: how many approvals so far and from whom, who may still approve, and that a reject ends it. */
export function quorumLine(review: Review, requester: string): string {
  const needed = approvalsNeeded(review.settings);
  // The approval that completed the quorum is in the decision only.
  const got: { by: string; for?: string }[] = review.decision?.approvals ?? review.approvals ?? [];
  const by = got.length ? `: ${approvers(got)}` : '';
  const barred = [
    ...got.flatMap((a) => (a.for ? [a.by, a.for] : [a.by])),
    ...(review.settings.allowSelfApproval ? [] : [requester]),
  ];
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
 * The open card, with the buttons the review allows (a plain card: those that approve nothing
 * unseen). `textBelow`: its content's full text was posted after it (see reviewTextMessages).
 */
export function reviewCard(
  review: Review,
  requester: string,
  plain?: PlainCard,
  textBelow = false,
): SlackMessage {
  const r = review.request;
  const label = (a: Action) => truncate(r.labels[a] ?? DEFAULT_LABELS[a], 75);
  const own = (plain ? plainActions(r) : r.actions).map((action) => ({
    type: 'button' as const,
    action_id: ACTION_IDS[action],
    text: { type: 'plain_text' as const, text: label(action), emoji: true },
    // Revise's modal opens before the review is read (the click's trigger lives 3 s): what its
    // box asks comes with the click.
    value: buttonValue(review, action === 'revise' && r.feedbackLabel ? { ask: r.feedbackLabel } : {}),
    ...(action === 'approve' ? { style: 'primary' as const } : {}),
    ...(action === 'reject'
      ? {
          style: 'danger' as const,
          confirm: rejectConfirm(r, label('reject')),
        }
      : {}),
  }));
  const buttons = withPolicyButtons(review, own, buttonValue(review));
  return {
    text: escapeMrkdwn(`Review needed: ${truncate(r.title, 200)}`),
    blocks: [
      ...head(review, requester, plain, textBelow),
      ...claimLines(review).map(contextLine),
      ...(buttons.length
        ? [{ type: 'actions' as const, block_id: `review:${review.id}`.slice(0, 255), elements: buttons }]
        : []),
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
  plain?: PlainCard,
  textBelow = false,
): SlackMessage {
  const d = review.decision;
  // An approval of an edit counted towards the quorum approved the edited call.
  const verb =
    d && (d.action === 'edit' || (d.action === 'approve' && review.request.edit)) ? VERB.edit : undefined;
  const by = closed && closed.by !== SYSTEM_ACTOR ? ` by <@${closed.by}>` : '';
  const why = closed ? `: ${escapeMrkdwn(closed.reason)}${by}` : '';
  const given = review.approvals ?? [];
  const who = d?.rule
    ? byRule(d.rule)
    : d?.automatic
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
      : `${verb ?? VERB[d.action]} ${who} ${slackDate(d.at)}${ended}${d.feedback ? `\n>${escapeMrkdwn(truncate(d.feedback, 2000)).replace(/\n/g, '\n>')}` : ''}`;
  // What was approved: with an edit, the edited call.
  const decided = { ...review, request: asDecided(review.request, d) };
  // The title's own line, when there is one, comes out of the outcome's room: the card still fits.
  const titleLine = titleInFull(decided.request.title);
  const room = CARD_OUTCOME - (titleLine ? titleLine.length + LIMITS.blockOverhead : 0);
  return {
    text: escapeMrkdwn(`${review.request.title}: ${d ? d.action : 'closed'}`),
    blocks: [
      ...head(decided, requester, plain, textBelow),
      { type: 'section', text: { type: 'mrkdwn', text: truncate(outcome, room) } },
    ],
  };
}
