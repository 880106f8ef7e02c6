/**
 * A reply in a task's thread while a review waits is never taken for a decision it did not state.
 * By the review's `replies` setting: `ask` (also reviews stored before the setting existed): a
 * reply addressed to the bot is revise feedback; any other reply from someone who may decide gets
 * them a private question. `feedback`: any reply from someone who may revise is feedback.
 * `ignore`: replies decide nothing. A tool call is never approved or edited by words: a reply to
 * one always gets the question, which offers no approval and no edit. Someone who may not decide
 * hears nothing about a plain reply (colleagues talk in threads), and the refusal when they
 * addressed the bot. Only a reply written once the review's card was in the thread counts: one
 * written before (at an earlier round's card) decides nothing and asks nothing, as the terminal
 * takes only a line typed once the review is on screen.
 */
import type { WebClient } from '@slack/web-api';
import { type Review, type Task, takesWords } from '../../engine/index.js';
import { carriesWords, fitsAsWords, questionChoices, replyQuestion } from '../blocks/reply-question.js';
import { escapeMrkdwn, truncate } from '../blocks/text.js';
import { cardKey, cardText, findPost, later } from '../shared/posts.js';
import { decideFromSlack, slackActor } from './decide.js';
import { COULD_NOT_RECORD, type ListenerDeps } from './deps.js';
import { recordReply } from './replies.js';
import type { Said } from './respond.js';

export interface ReplyAtReview {
  task: Task;
  channel: string;
  threadTs: string;
  /** The reply message's own ts. */
  ts: string;
  user: string;
  text: string;
  /** Mentions the bot or starts with "revise:". */
  addressed: boolean;
  /** The author's own workspace, when Slack says (`user_team`: another one's in Slack Connect). */
  team?: string;
}

const SEVERAL = 'Several reviews are waiting in this thread; use the buttons on the card you mean.';
const IGNORED =
  "Replies in this thread do not decide this review; use the card's buttons to approve, revise or reject.";
const titled = (review: Review) => `*${escapeMrkdwn(truncate(review.request.title, 150))}*`;
const WRITTEN_BEFORE = (review: Review) =>
  `Nothing was recorded: you wrote this before the card of ${titled(review)} was posted in this thread, so it cannot be about what that card shows. Read the card, then reply again or use its buttons.`;
const NO_CARD_YET = (review: Review) =>
  `Nothing was recorded: the card of ${titled(review)} is not in this thread yet. Once it is, read it, then reply again or use its buttons.`;

/**
 * Why the reply cannot be about the review's card, or undefined when it was written once the card
 * was in the thread: Slack gives a message the ts of when it was written, however late its event
 * comes (a retry, a busy listener). Words written before (at an earlier round's card, or before
 * this one was posted) are about other content, whatever review waits when they are read; while
 * no card is recorded (its post waits, or failed for now), there is nothing they can be about.
 */
async function notAtCard(deps: ListenerDeps, review: Review, r: ReplyAtReview): Promise<string | undefined> {
  const card = await findPost(deps.pool, cardKey(review.id));
  if (card === undefined || card.channel !== r.channel) return NO_CARD_YET(review);
  return later(r.ts, card.ts) ? undefined : WRITTEN_BEFORE(review);
}

/** Handles the reply; `tell` says a sentence (or asks the question) to its author alone, in the thread. */
export async function replyAtReview(
  deps: ListenerDeps,
  client: WebClient,
  r: ReplyAtReview,
  tell: (said: Said) => Promise<unknown>,
): Promise<void> {
  const pending = await deps.engine.reviews(r.task.id, 'pending');
  if (!pending.length) return;
  const actor = await slackActor(
    deps.directory,
    r.user,
    r.team,
    pending.map((p) => p.settings.reviewers),
  );
  if (pending.length > 1) {
    const mayDecide = async () => {
      for (const review of pending) {
        if ((await deps.engine.choicesFor(review, r.task, actor)).actions.length) return true;
      }
      return false;
    };
    if (r.addressed || (await mayDecide())) await tell(SEVERAL);
    return;
  }
  const review = pending[0] as Review;
  const mode = review.settings.replies ?? 'ask';
  if (mode === 'ignore') {
    if (r.addressed) await tell(IGNORED);
    return;
  }
  const words = takesWords(review.request);
  // Never a decision, nor a question, on content the reply's author could not have seen yet.
  const unseen = await notAtCard(deps, review, r);
  if (unseen) {
    // Told where the words would have been taken as a decision; a colleague's remark stays unanswered.
    const meant =
      r.addressed ||
      (words &&
        mode === 'feedback' &&
        (await deps.engine.choicesFor(review, r.task, actor)).actions.includes('revise'));
    if (meant) await tell(unseen);
    return;
  }
  const revise = () =>
    decideFromSlack(deps, client, {
      click: { review: review.id, task: r.task.id },
      user: r.user,
      channel: r.channel,
      action: 'revise',
      feedback: r.text,
      threadTs: r.threadTs,
      team: r.team,
    });
  // Addressed feedback goes straight to the engine, which refuses (and records) a non-reviewer.
  if (words && r.addressed) return void (await revise());
  const choices = await deps.engine.choicesFor(review, r.task, actor);
  if (!choices.actions.length) {
    if (r.addressed && choices.refusal) await tell(choices.refusal);
    return;
  }
  if (words && mode === 'feedback' && choices.actions.includes('revise')) return void (await revise());
  let offered: ReturnType<typeof questionChoices>;
  try {
    // A card that could not show its content offers no approval; neither does its question.
    const { plain } = await cardText(deps.pool, review.id, review.request);
    // A reply too long to send as is offers no choice that sends it (the question says so).
    const fits = fitsAsWords(review, r.text);
    offered = questionChoices(review, choices.actions).filter(
      (c) => !(plain && c === 'approve') && (fits || !carriesWords(review, c)),
    );
    if (offered.length) {
      await recordReply(deps.pool, {
        channel: r.channel,
        ts: r.ts,
        taskId: r.task.id,
        user: r.user,
        text: r.text,
      });
    }
  } catch (error) {
    // Someone who may decide would have been asked: they hear that it failed.
    deps.logger.error({ err: error }, 'could not record a reply at a review');
    return void (await tell(COULD_NOT_RECORD));
  }
  // Through `tell`, like any sentence: a 429 sends the question again after its Retry-After.
  await tell(replyQuestion(review, { ts: r.ts, text: r.text }, offered));
}
