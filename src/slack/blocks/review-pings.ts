/** What the thread says while a review waits: a reminder, and an escalation's ping. */
import type { Review } from '../../engine/index.js';
import type { SlackMessage } from './messages.js';
import { mentions, notified, slackDate } from './people.js';
import { escapeMrkdwn, LIMITS, truncate } from './text.js';

/** A reminder in the thread: the reviewers pinged again, and the deadline (or that it passed). */
export function reminderMessage(
  review: Review,
  requester: string,
  overdue: boolean,
  withheld?: string,
): SlackMessage {
  const title = escapeMrkdwn(truncate(review.request.title, 200));
  const also = notified(review, requester);
  // Whoever approved already has nothing left to do here.
  const approved = new Set((review.approvals ?? []).map((a) => a.by));
  const waitingFor = review.settings.reviewers.filter(
    (r) => !approved.has(r) && !(r === 'requester' && approved.has(requester)),
  );
  // A review someone took is theirs to decide: the reminder is for them.
  const whom = review.claimedBy
    ? [review.claimedBy]
    : waitingFor.length
      ? waitingFor
      : review.settings.reviewers;
  const who = `${mentions(whom, requester)}${also ? ` (${also})` : ''}`;
  // Why the deadline did not approve it as its checkpoint says (a tool call; content nobody saw).
  const kept = withheld ? ` ${escapeMrkdwn(truncate(withheld, 300))}` : '';
  const text = overdue
    ? `:alarm_clock: ${who}: *${title}* is past its deadline and still waiting for a decision.${kept}`
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

/** The thread's ping when a review is handed to someone: they have it now (and why, when its reviewer is away). */
export function handedMessage(review: Review, by: string, to: string, away?: string): SlackMessage {
  const title = escapeMrkdwn(truncate(review.request.title, 200));
  const text = away
    ? `:palm_tree: <@${by}> is away until ${away}: <@${to}>, *${title}* is yours to decide now.`
    : `:handshake: <@${to}>, <@${by}> handed you *${title}*: it is yours to decide now.`;
  return {
    text: escapeMrkdwn(`${truncate(review.request.title, 200)} was handed over`),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } }],
  };
}
