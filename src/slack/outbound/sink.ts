/**
 * The Slack surface's sink: engine events become thread replies, review cards and updates of the
 * root message and of decided cards.
 *
 * Posts are once-only. Each is recorded under its key once Slack answers, and carries that key in
 * its message metadata; an attempt after an earlier one (which may have posted and died before
 * recording) first looks for the key in the thread, and records what it finds instead of posting.
 *
 * Slack's errors become `DeliveryError`s: a 429 is the rate limit (the event waits, not counted
 * as a failed attempt; see rate-limits.ts); outages and timeouts are temporary; a
 * channel the bot cannot reach any more is unreachable (the task fails, saying so); anything
 * else is this message refused (a few tries, then a fallback post). An update whose message is
 * gone has nothing left to do.
 */
import type { WebClient } from '@slack/web-api';
import type pg from 'pg';
import {
  asDecided,
  contentHash,
  eventInWords,
  FINAL_STATUSES,
  type Review,
  type ReviewRequest,
  type Sink,
  type Task,
} from '../../engine/index.js';
import { DeliveryError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { agentMessages, redirectedMessage, rootMessage } from '../blocks/messages.js';
import { isPerson } from '../blocks/people.js';
import {
  decidedCard,
  notShownBecause,
  type PlainCard,
  reviewCard,
  reviewTextMessages,
} from '../blocks/review-card.js';
import { escalatedMessage, handedMessage, reminderMessage } from '../blocks/review-pings.js';
import { ruleKey, ruleMessage } from '../blocks/rule-message.js';
import { LIMITS, truncate, truncateBytes, UPDATE_TEXT_BYTES } from '../blocks/text.js';
import { createAudience } from '../shared/audience.js';
import { rootOf, type SlackOrigin, slackOriginSchema } from '../shared/origin.js';
import {
  cardKey,
  cardText,
  findPost,
  plainCardKey,
  plainContentKey,
  postMetadata,
  recordPost,
  reviewTextKey,
} from '../shared/posts.js';
import { findThreadPost } from '../shared/recent-post.js';
import { deliveryError, isWebApiError, slackCode } from './delivery-errors.js';
import { defuse } from './live-text.js';
import { createReviewerPings } from './pings.js';
import type { SlackLive } from './streams.js';
import { createThinking } from './thinking.js';

/** An update whose message is gone: nothing left to update. */
const GONE = new Set(['message_not_found', 'cant_update_message', 'edit_window_closed']);

export function createSlackSink(deps: {
  client: WebClient;
  pool: pg.Pool;
  logger: Logger;
  /** The streams that showed agents' words as they were written (streams.ts). */
  live?: Pick<SlackLive, 'handOver' | 'closeLeftOpen'>;
}): Sink {
  const { client, pool, logger } = deps;
  const audience = createAudience({ client, logger });
  const pingReviewers = createReviewerPings({ client, pool, audience, logger });
  const thinking = createThinking({ client, logger });
  /**
   * The people an escalation names who are not in the task's channel: they cannot see the card
   * (nor get a DM about a channel they are not in), so the thread says to invite them. Empty when
   * Slack cannot say who is in it (the event is not held up for that).
   */
  const outsiders = async (task: Task, to: string[]): Promise<string[]> => {
    const members = await audience.membersOf(task).catch(() => undefined);
    return members ? to.filter((u) => isPerson(u) && !members.has(u)) : [];
  };
  /**
   * Direct messages are extra: one Slack refuses (a deactivated user, a DM the workspace blocks)
   * is logged and skipped, never blamed on the card or the channel. Temporary failures are
   * retried with the event (the card is not posted again; each person is messaged once).
   */
  const ping: typeof pingReviewers = async (task, review, why, retried, only) => {
    try {
      await pingReviewers(task, review, why, retried, only);
    } catch (error) {
      // Only Slack refusing this one person is skipped. Anything else (the rate limit saying
      // "not yet", the delivery's lease gone, Slack having a problem, the database losing the
      // record of a message Slack took) is tried again with the event: the DMs already sent are
      // found, not sent twice, and the people after the failure are still messaged.
      const refused = isWebApiError(error) && ['refused', 'unreachable'].includes(deliveryError(error).kind);
      if (!refused) throw error;
      logger.warn(
        { task: task.id, review: review.id, slack: slackCode(error) },
        'could not message a reviewer directly',
      );
    }
  };

  /** A post of `key` already in the thread (made by an attempt that died before recording it). */
  const foundInThread = (key: string, origin: SlackOrigin) => findThreadPost(client, origin, key);

  /** Posts once per key: a key already posted is skipped, also when only the thread knows it. */
  const postOnce = async (
    key: string,
    origin: SlackOrigin,
    message: { text: string; blocks: unknown[] },
    retried: boolean,
    extra: object = {},
  ) => {
    if (await findPost(pool, key)) return;
    const earlier = retried ? await foundInThread(key, origin) : undefined;
    const ts =
      earlier ??
      (
        await client.chat.postMessage({
          channel: origin.channel,
          thread_ts: origin.ts,
          text: message.text,
          blocks: message.blocks as never,
          unfurl_links: false,
          unfurl_media: false,
          metadata: postMetadata(key),
          ...extra,
        })
      ).ts;
    await recordPost(pool, key, origin.channel, ts as string);
  };

  /** Updates a posted message; one that is gone (deleted, too old to edit) is left alone. */
  const edit = async (args: { channel: string; ts: string; text: string; blocks?: unknown[] }) => {
    try {
      await client.chat.update(args as never);
    } catch (error) {
      const code = slackCode(error);
      if (!code || !GONE.has(code)) throw error;
      logger.info({ slack: code, ts: args.ts }, 'the message to update is gone; nothing to update');
    }
  };

  /**
   * The message that streamed an agent's words as they were written now shows the saved words
   * (the first part of them), recorded as that part's post; false when there is no such message
   * any more (not streamed, closed with a note, deleted): the part is posted.
   */
  const showStreamed = async (
    task: Task,
    origin: SlackOrigin,
    said: { stream: string; text: string; whole: boolean },
    key: string,
    part: { text: string; blocks: unknown[] },
  ) => {
    if (await findPost(pool, key)) return true;
    const message = await deps.live?.handOver(said.stream, task, origin);
    if (!message) return false;
    // It showed exactly the saved words, all in one message: nothing to change.
    const same = said.whole && message.shown?.trim() === defuse(said.text).trim();
    if (!same) {
      const { channel, ts } = message;
      try {
        const text = truncateBytes(part.text, UPDATE_TEXT_BYTES);
        await client.chat.update({ channel, ts, text, blocks: part.blocks as never });
      } catch (error) {
        if (slackCode(error) === 'message_not_found') return false;
        const failure = isWebApiError(error) ? deliveryError(error) : error;
        const kind = failure instanceof DeliveryError ? failure.kind : undefined;
        if (kind !== 'limited' && kind !== 'refused') throw error;
        // Edits wait behind every root's (chat.update's one budget), and Slack takes less in an
        // edit than in a post: rather than hold the thread back or show a fallback, the streamed
        // message goes and the saved words are posted.
        await client.chat.delete({ channel, ts }).catch((gone) => {
          if (slackCode(gone) !== 'message_not_found') throw gone;
        });
        return false;
      }
    }
    await recordPost(pool, key, message.channel, message.ts);
    return true;
  };

  const update = async (key: string, message: { text: string; blocks: unknown[] }) => {
    const post = await findPost(pool, key);
    if (!post) return;
    await edit({ channel: post.channel, ts: post.ts, text: message.text, blocks: message.blocks });
  };

  /** Posts the full text of a review's content (`request`) in the thread, each part once per content. */
  const postText = async (
    review: Review,
    request: ReviewRequest,
    origin: SlackOrigin,
    retried: boolean,
    below = false,
  ) => {
    const hash = contentHash(request);
    for (const [i, part] of reviewTextMessages({ request }, below).entries())
      await postOnce(reviewTextKey(review.id, hash, i), origin, part, retried);
  };

  /**
   * Redraws a review's card as it is now, showing `shown` (its content, or as decided). Long
   * content whose full text is not all in the thread yet (an edit changed it; a part failed to
   * post) is posted first, below the card, each part once, so that the card shows what an Approve
   * on it approves; plain when it cannot (see cardText).
   */
  const updateCard = async (
    review: Review,
    origin: SlackOrigin,
    retried: boolean,
    draw: (plain: PlainCard | undefined, textBelow: boolean) => { text: string; blocks: unknown[] },
    shown: ReviewRequest = review.request,
  ) => {
    if (!(await findPost(pool, cardKey(review.id)))) return;
    let text = await cardText(pool, review.id, shown);
    if (text.missing) {
      await postText(review, shown, origin, retried, true);
      text = await cardText(pool, review.id, shown);
    }
    await update(cardKey(review.id), draw(text.plain ? {} : undefined, text.below));
  };

  /**
   * The root message shows the task as it is now (read with this delivery): status updates and a
   * redirect's new goal, in whichever order their lanes deliver them, never show an older state.
   */
  const updateRoot = (origin: SlackOrigin, task: Task) =>
    edit({ ...rootOf(origin), ...rootMessage(task, task.status, task.statusReason) });

  const show = async (task: Task, event: Parameters<Sink>[0]) => {
    const origin = slackOriginSchema.parse(task.origin);
    const e = event.event;
    const retried = event.attempts > 1;
    switch (e.type) {
      case 'task_started':
        // The root message was posted when the command was answered; a task started in the
        // Messages tab is working from here without a status event: its thread shows it.
        return thinking(origin, task);
      case 'agent_said': {
        const parts = agentMessages(e.text);
        const key = (i: number) => `${event.taskId}:${event.key}:${i}`;
        const first = parts[0];
        if (e.streamed && first) {
          const said = { stream: e.streamed, text: e.text, whole: parts.length === 1 };
          await showStreamed(task, origin, said, key(0), first);
        }
        for (const [i, part] of parts.entries()) {
          // Posting under the agent's name needs chat:write.customize (in the manifest).
          await postOnce(key(i), origin, part, retried, {
            username: e.agent.slice(0, 80),
            icon_emoji: ':robot_face:',
          });
        }
        // Slack clears a DM thread's thinking status when the app posts there: the agents still work.
        if (task.status === 'working') await thinking(origin, task);
        return;
      }
      case 'review_requested': {
        // Content longer than a card goes whole into the thread first: the card says it is above.
        await postText(e.review, e.review.request, origin, retried);
        await postOnce(cardKey(e.review.id), origin, reviewCard(e.review, task.requester), retried);
        if (e.review.settings.dmReviewers) await ping(task, e.review, 'request', retried);
        return;
      }
      case 'review_decided':
        // What was decided: with an edit, the edited call (whose full text may be new).
        await updateCard(
          e.review,
          origin,
          retried,
          (plain, below) => decidedCard(e.review, task.requester, undefined, plain, below),
          asDecided(e.review.request, e.review.decision),
        );
        return;
      case 'review_progress':
        // One more approval (or an edit that counted as one): the card shows it, and who may
        // still approve; an edit's changed content is posted in full first.
        await updateCard(e.review, origin, retried, (plain, below) =>
          reviewCard(e.review, task.requester, plain, below),
        );
        return;
      case 'review_escalated':
        await updateCard(e.review, origin, retried, (plain, below) =>
          reviewCard(e.review, task.requester, plain, below),
        );
        await postOnce(
          `${event.taskId}:${event.key}`,
          origin,
          escalatedMessage(e, task.requester, await outsiders(task, e.to)),
          retried,
        );
        await ping(task, e.review, event.key, retried, e.to);
        return;
      case 'review_reminder':
        await postOnce(
          `${event.taskId}:${event.key}`,
          origin,
          reminderMessage(e.review, task.requester, e.overdue, e.withheld),
          retried,
        );
        if (e.review.settings.dmReviewers) await ping(task, e.review, event.key, retried);
        return;
      case 'task_redirected':
        await postOnce(`${event.taskId}:${event.key}`, origin, redirectedMessage(e), retried);
        // The root message shows the goal: it is the new one now.
        await updateRoot(origin, task);
        return;
      case 'review_closed':
        await updateCard(e.review, origin, retried, (plain, below) =>
          decidedCard(e.review, task.requester, e, plain, below),
        );
        return;
      case 'task_status':
        await updateRoot(origin, task);
        await thinking(origin, task);
        // Over, and no run of it comes: what a run that died left streaming closes with a note.
        if (FINAL_STATUSES.includes(task.status)) await deps.live?.closeLeftOpen(task, origin);
        return;
      case 'review_claimed':
        // The card says who has it; whoever was handed it is pinged in the thread (not on a return).
        await updateCard(e.review, origin, retried, (plain, below) =>
          reviewCard(e.review, task.requester, plain, below),
        );
        if (e.to && e.to !== e.by && !e.back)
          await postOnce(
            `${event.taskId}:${event.key}`,
            origin,
            handedMessage(e.review, e.by, e.to, e.away),
            retried,
          );
        return;
      case 'rule_changed': {
        // One message a rule, in the thread it was proposed from, redrawn as the rule changes.
        const message = ruleMessage(e.rule, e.signers, new Date());
        if (await findPost(pool, ruleKey(e.rule.id))) await update(ruleKey(e.rule.id), message);
        else await postOnce(ruleKey(e.rule.id), origin, message, retried);
        return;
      }
      case 'delivery_failed': {
        // A card Slack would not take comes back plain, without its content: it can still be sent
        // back or rejected here, never approved. Marked plain first, so that no later redraw of
        // it (a decision, an escalation) shows an Approve.
        if (e.review && e.failedType === 'review_progress') {
          // A redraw for content an edit changed (its full text not all posted, or the card
          // refused): the card goes plain for that content, and stays plain for it.
          const key = plainContentKey(e.review.id, contentHash(e.review.request));
          await recordPost(pool, key, origin.channel, origin.ts);
          await update(cardKey(e.review.id), reviewCard(e.review, task.requester, { code: e.code }));
        } else if (e.review) {
          await recordPost(pool, plainCardKey(e.review.id), origin.channel, origin.ts);
          await postOnce(
            cardKey(e.review.id),
            origin,
            reviewCard(e.review, task.requester, { code: e.code }),
            retried,
          );
        } else await postOnce(`${event.taskId}:${event.key}`, origin, fallbackMessage(task, e), retried);
        return;
      }
    }
  };

  const sink: Sink = async (event, task) => {
    try {
      await show(task, event);
    } catch (error) {
      throw isWebApiError(error) ? deliveryError(error) : error;
    }
  };
  return sink;
}

/** The short post that stands in for an event that could not be shown for good (Slack, or signoff). */
function fallbackMessage(task: Task, e: { failedType: Parameters<typeof eventInWords>[0]; code: string }) {
  const text =
    `${eventInWords(e.failedType)} could not be shown here${notShownBecause(e.code)}. ` +
    `It is kept in signoff: \`signoff events ${task.id}\``;
  const section = truncate(`:warning: ${text}`, LIMITS.sectionText);
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: section } }] };
}
