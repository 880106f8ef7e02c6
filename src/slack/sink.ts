/**
 * The Slack surface's sink: engine events become thread replies, review cards and updates of the
 * root message and of decided cards. Each post is recorded under its event key before the event
 * counts as delivered, so a delivery retried after a failure never posts twice what it posted.
 * Errors Slack will never accept (a deleted channel) are logged and skipped; others are thrown
 * so that the job retries the delivery (the Web API client already waits out 429s).
 */
import type { WebClient } from '@slack/web-api';
import type pg from 'pg';
import type { Sink, Task, TaskStatus } from '../engine/types.js';
import type { Logger } from '../logger.js';
import { agentMessages, redirectedMessage, rootMessage } from './blocks/messages.js';
import { decidedCard, reminderMessage, reviewCard } from './blocks/review-card.js';
import { type SlackOrigin, slackOriginSchema } from './origin.js';
import { createReviewerPings } from './pings.js';
import { findPost, recordPost } from './posts.js';

const PERMANENT = new Set([
  'channel_not_found',
  'is_archived',
  'not_in_channel',
  'message_not_found',
  'cant_update_message',
]);

export function createSlackSink(deps: { client: WebClient; pool: pg.Pool; logger: Logger }): Sink {
  const { client, pool, logger } = deps;
  const pingReviewers = createReviewerPings({ client, pool });

  /** Posts once per key: a key already posted is skipped. */
  const postOnce = async (
    key: string,
    origin: SlackOrigin,
    message: { text: string; blocks: unknown[] },
    extra: object = {},
  ) => {
    if (await findPost(pool, key)) return;
    const r = await client.chat.postMessage({
      channel: origin.channel,
      thread_ts: origin.ts,
      text: message.text,
      blocks: message.blocks as never,
      unfurl_links: false,
      unfurl_media: false,
      ...extra,
    });
    await recordPost(pool, key, origin.channel, r.ts as string);
  };

  const update = async (key: string, message: { text: string; blocks: unknown[] }) => {
    const post = await findPost(pool, key);
    if (!post) return;
    await client.chat.update({
      channel: post.channel,
      ts: post.ts,
      text: message.text,
      blocks: message.blocks as never,
    });
  };

  const updateRoot = (origin: SlackOrigin, task: Task, status: TaskStatus, reason: string | null) =>
    client.chat.update({
      channel: origin.channel,
      ts: origin.ts,
      ...rootMessage(task, status, reason),
    } as never);

  const show = async (task: Task, event: Parameters<Sink>[0]) => {
    const origin = slackOriginSchema.parse(task.origin);
    const e = event.event;
    switch (e.type) {
      case 'task_started':
        return; // the root message was posted when the command was answered
      case 'agent_said': {
        const parts = agentMessages(e.text);
        for (const [i, part] of parts.entries()) {
          // Posting under the agent's name needs chat:write.customize (in the manifest).
          await postOnce(`${event.taskId}:${event.key}:${i}`, origin, part, {
            username: e.agent.slice(0, 80),
            icon_emoji: ':robot_face:',
          });
        }
        return;
      }
      case 'review_requested':
        await postOnce(`card:${e.review.id}`, origin, reviewCard(e.review, task.requester));
        if (e.review.settings.dmReviewers) await pingReviewers(task, e.review, 'request');
        return;
      case 'review_decided':
        await update(`card:${e.review.id}`, decidedCard(e.review, task.requester));
        return;
      case 'review_reminder':
        await postOnce(
          `${event.taskId}:${event.key}`,
          origin,
          reminderMessage(e.review, task.requester, e.overdue),
        );
        if (e.review.settings.dmReviewers) await pingReviewers(task, e.review, event.key);
        return;
      case 'task_redirected':
        await postOnce(`${event.taskId}:${event.key}`, origin, redirectedMessage(e));
        // The root message shows the goal: it is the new one now.
        await updateRoot(origin, { ...task, text: e.text }, 'working', null);
        return;
      case 'review_closed':
        await update(`card:${e.review.id}`, decidedCard(e.review, task.requester, e));
        return;
      case 'task_status':
        await updateRoot(origin, task, e.status, e.reason);
        return;
    }
  };

  return async (event, task) => {
    try {
      await show(task, event);
    } catch (error) {
      const code = (error as { data?: { error?: string } }).data?.error;
      if (code && PERMANENT.has(code)) {
        logger.warn(
          { task: task.id, event: event.key, slack: code },
          'Slack refused for good; skipping this event',
        );
        return;
      }
      throw error;
    }
  };
}
