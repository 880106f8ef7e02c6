/**
 * The private question a reply in the thread gets while a review waits (`replies: ask`): what
 * was heard, and one tap to use it as feedback, approve, reject, or ignore it. Only the choices
 * the review offers and its author may take are shown; a tool call is never approved or edited
 * from here (the card's buttons do that).
 */
import type { types } from '@slack/bolt';
import type { Action, Review } from '../../engine/index.js';
import { answeredWithWords } from '../../engine/index.js';
import type { SlackMessage } from './messages.js';
import { who } from './people.js';
import { rejectConfirm } from './reject-confirm.js';
import { buttonValue } from './review-card.js';
import { escapeMrkdwn, LIMITS, truncate } from './text.js';

type KnownBlock = types.KnownBlock;

export const QUESTION_ACTION_IDS = {
  revise: 'signoff_reply_revise',
  approve: 'signoff_reply_approve',
  reject: 'signoff_reply_reject',
  ignore: 'signoff_reply_ignore',
} as const;
export type QuestionChoice = keyof typeof QUESTION_ACTION_IDS;
/** The decisions a question may carry: never an edit (words never change a tool call's arguments). */
export type QuestionDecision = Exclude<QuestionChoice, 'ignore'>;

/** How much of the reply the question quotes (replies.ts keeps up to 3,000 characters server-side). */
const EXCERPT = 300;

/** A question button's value: the card's (review, task, content hash) and the reply it is about. */
export const questionValue = (review: Review, replyTs: string) => buttonValue(review, { reply: replyTs });

const isToolCall = (review: Review) => review.request.origin !== undefined;

/** Whether a choice sends the reply's words: a revise's feedback, or a tool call's reject message. */
export const carriesWords = (review: Review, choice: QuestionDecision) =>
  choice === 'revise' || (choice === 'reject' && isToolCall(review));

/**
 * Whether the reply can be sent as the review's words as it is: within the checkpoint's
 * `feedback.maxLength` (the engine refuses more). A longer one is never cut to fit: the words
 * sent would not be the ones written.
 */
export const fitsAsWords = (review: Review, text: string) =>
  text.trim().length <= review.settings.feedback.maxLength;

const count = (n: number) => n.toLocaleString('en-US');

/**
 * The decisions a question offers, of those the author may take (`allowed`). A tool call offers
 * no approval and no edit: only a reject (its message the reply) and, where the agent takes
 * words as its answer, the reply sent as that answer.
 */
export function questionChoices(review: Review, allowed: Action[]): QuestionDecision[] {
  const may = (a: Action) => allowed.includes(a) && review.request.actions.includes(a);
  // Once edited (an Edit counted towards a quorum), what an approval approves changed: a reply
  // may have been about what the card showed before, and the card may not show the edit yet (its
  // update waits its turn in the outbox). Its buttons approve the edit; a question never does.
  if (!isToolCall(review))
    return (['revise', 'approve', 'reject'] as const).filter(
      (a) => may(a) && !(a === 'approve' && review.request.edit),
    );
  return [
    ...(answeredWithWords(review.request) && may('revise') ? (['revise'] as const) : []),
    ...(may('reject') ? (['reject'] as const) : []),
  ];
}

function label(review: Review, choice: QuestionChoice): string {
  const own = review.request.labels;
  const hitl = review.request.origin?.format === 'hitl';
  switch (choice) {
    case 'revise':
      if (isToolCall(review)) return 'Send as response';
      return own.revise ? `${own.revise}: use my reply` : 'Revise with it';
    case 'approve':
      return own.approve ?? 'Approve';
    case 'reject':
      if (isToolCall(review)) return hitl ? 'Reject with this message' : 'Reject the call';
      return own.reject ?? 'Reject';
    case 'ignore':
      return 'Ignore';
  }
}

/** The reply, quoted: its start, escaped, each line marked as a quote. */
const quoted = (text: string) => `>${escapeMrkdwn(truncate(text, EXCERPT)).replace(/\n/g, '\n>')}`;

/**
 * The question to the author of `reply` (its message ts and text) about `review`, with the
 * buttons for `choices` and Ignore; with no choices, only the sentence (a tool call whose
 * author may only approve or edit it: the card does that).
 */
export function replyQuestion(
  review: Review,
  reply: { ts: string; text: string },
  choices: QuestionDecision[],
): SlackMessage {
  const title = escapeMrkdwn(truncate(review.request.title, 150));
  const what = isToolCall(review)
    ? "A reply never approves or edits a tool call: to do that, use the card's buttons."
    : 'A reply is not a decision by itself. What should I do with it?';
  const tooLong = fitsAsWords(review, reply.text)
    ? ''
    : ` Your reply is too long to send as is (${count(reply.text.trim().length)} characters; this review takes at most ${count(review.settings.feedback.maxLength)}): to send it, shorten it and reply again.`;
  const edited =
    review.request.edit && !isToolCall(review)
      ? ` ${who(review.request.edit.by)} edited it: to approve it as it is now, look at the card and use its buttons.`
      : '';
  const text = `:speech_balloon: You replied while *${title}* waits for a decision:\n${quoted(reply.text)}\n${what}${edited}${tooLong}${isToolCall(review) && choices.length ? ' Or:' : ''}`;
  const value = questionValue(review, reply.ts);
  const button = (choice: QuestionChoice) => ({
    type: 'button' as const,
    action_id: QUESTION_ACTION_IDS[choice],
    text: { type: 'plain_text' as const, text: truncate(label(review, choice), 75), emoji: true },
    value,
    ...(choice === 'approve' ? { style: 'primary' as const } : {}),
    // What a reject does, said in its confirm dialog (as on the card, Slack asks before it is sent).
    ...(choice === 'reject'
      ? {
          style: 'danger' as const,
          confirm: rejectConfirm(review.request, label(review, 'reject'), carriesWords(review, 'reject')),
        }
      : {}),
  });
  const buttons: KnownBlock[] = choices.length
    ? [
        {
          type: 'actions',
          block_id: `reply:${review.id}`.slice(0, 255),
          elements: [...choices.map((c) => button(c)), button('ignore')],
        },
      ]
    : [];
  return {
    text: escapeMrkdwn(`You replied while "${truncate(review.request.title, 150)}" waits for a decision.`),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } },
      ...buttons,
    ],
  };
}

/** What the question becomes when its author chose Ignore. */
export const NOTHING_DONE = 'Nothing was done with your reply.';

/** What the question becomes once its author chose and the decision went through. */
export function questionAnswered(review: Review, choice: QuestionDecision): string {
  const title = escapeMrkdwn(truncate(review.request.title, 150));
  switch (choice) {
    case 'revise':
      return isToolCall(review)
        ? `:speech_balloon: Your reply was sent to the agent as its response to *${title}*.`
        : `:pencil2: Your reply went to the agents as feedback on *${title}*.`;
    case 'approve':
      return `:white_check_mark: You chose *${escapeMrkdwn(label(review, 'approve'))}* on *${title}*.`;
    case 'reject':
      return isToolCall(review)
        ? `:no_entry_sign: You rejected *${title}*${review.request.origin?.format === 'hitl' ? ', with your reply as the reason' : ''}; the call does not run.`
        : `:no_entry_sign: You chose *${escapeMrkdwn(label(review, 'reject'))}* on *${title}*.`;
  }
}
