/**
 * Direct messages to a review's reviewers (a checkpoint's `dmReviewers`), each with a link to the
 * card in its thread, and again at each reminder. Each person is messaged once per review and
 * reminder, even if a delivery is retried. `anyone` is nobody in particular, so it is not messaged;
 * nor is anyone who is not in the task's channel.
 */
import type { WebClient } from '@slack/web-api';
import type pg from 'pg';
import type { Review, Task } from '../engine/types.js';
import type { Audience } from './audience.js';
import { escapeMrkdwn, truncate } from './blocks/text.js';
import { findPost, postMetadata, recordPost } from './posts.js';
import { findRecentPost } from './recent-post.js';

/**
 * `why` is 'request' for a new review, else the event's key (one DM per reminder, or per
 * escalation step, whose key starts with 'escalated:' and which messages `only` those it added).
 * `retried`: an earlier attempt may have messaged someone and died before recording it.
 */
export type PingReviewers = (
  task: Task,
  review: Review,
  why: string,
  retried?: boolean,
  only?: string[],
) => Promise<void>;

export function createReviewerPings(deps: {
  client: WebClient;
  pool: pg.Pool;
  audience: Audience;
}): PingReviewers {
  const { client, pool } = deps;
  // A person's DM channel and a card's permalink never change: asked once per process, so that a
  // round of reminders costs Slack one post per person, not three calls under tight limits.
  const dmChannels = new Map<string, string>();
  const permalinks = new Map<string, string>();
  const dmOf = async (user: string) => {
    let channel = dmChannels.get(user);
    if (!channel) {
      channel = (await client.conversations.open({ users: user })).channel?.id as string;
      dmChannels.set(user, channel);
    }
    return channel;
  };

  const people = async (task: Task, reviewers: string[]): Promise<string[]> => {
    const users = new Set<string>();
    for (const r of reviewers) {
      if (r === 'requester') users.add(task.requester);
      else if (/^[UW]/.test(r)) users.add(r);
      else if (r.startsWith('S')) {
        for (const u of (await client.usergroups.users.list({ usergroup: r })).users ?? []) users.add(u);
      }
    }
    return [...users];
  };

  return async (task, review, why, retried = false, only) => {
    const card = await findPost(pool, `card:${review.id}`);
    if (!card) return;
    let permalink = permalinks.get(review.id);
    if (!permalink) {
      permalink = (await client.chat.getPermalink({ channel: card.channel, message_ts: card.ts }))
        .permalink as string;
      permalinks.set(review.id, permalink);
      // Bounded: the oldest cards' links go first (they are asked again if ever needed).
      if (permalinks.size > 10_000) permalinks.delete(permalinks.keys().next().value as string);
    }
    const title = escapeMrkdwn(truncate(review.request.title, 200));
    const text =
      why === 'request'
        ? `<@${task.requester}>'s *${escapeMrkdwn(task.workflow)}* task needs your review: <${permalink}|${title}>`
        : why.startsWith('escalated:')
          ? `:arrow_double_up: Nobody decided in time, so <${permalink}|${title}> (<@${task.requester}>'s *${escapeMrkdwn(task.workflow)}* task) is escalated to you.`
          : `:alarm_clock: Reminder: <${permalink}|${title}> is still waiting for your review.`;
    // Nobody hears of a review from a channel they are not in (a private channel stays private).
    // Slack not saying who is in it is a temporary failure: the ping is tried again with the event.
    const members = await deps.audience.membersOf(task);
    // Whoever approved already (N of M) is not asked again.
    const approved = new Set((review.approvals ?? []).map((a) => a.by));
    for (const user of await people(task, only ?? review.settings.reviewers)) {
      if (!members.has(user) || approved.has(user)) continue;
      const key = why === 'request' ? `dm:${review.id}:${user}` : `dm:${why}:${user}`;
      if (await findPost(pool, key)) continue;
      const channel = await dmOf(user);
      const ts =
        (retried ? await findRecentPost(client, channel, key) : undefined) ??
        (
          await client.chat.postMessage({
            channel,
            text,
            unfurl_links: false,
            metadata: postMetadata(key),
          })
        ).ts;
      await recordPost(pool, key, channel, ts as string);
    }
  };
}
