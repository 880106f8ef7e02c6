/**
 * Direct messages to a review's reviewers (a checkpoint's `dmReviewers`), each with a link to the
 * card in its thread, and again at each reminder. Each person is messaged once per review and
 * reminder, even if a delivery is retried. `anyone` is nobody in particular, so it is not messaged;
 * nor is anyone who is not in the task's channel.
 */
import { ErrorCode, type WebClient } from '@slack/web-api';
import type pg from 'pg';
import type { Review, Task } from '../../engine/index.js';
import type { Logger } from '../../logger.js';
import { isPerson, who } from '../blocks/people.js';
import { escapeMrkdwn, truncate } from '../blocks/text.js';
import type { Audience } from '../shared/audience.js';
import { CHANNEL_REFUSALS } from '../shared/final-errors.js';
import { workspaceOf } from '../shared/origin.js';
import { createPermalinks } from '../shared/permalinks.js';
import { cardKey, findPost, postMetadata, recordPost } from '../shared/posts.js';
import { findRecentPost } from '../shared/recent-post.js';

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

/**
 * Slack's answers that say this one group or person cannot be reached, for good: a user group
 * deleted since the config named it (or none on the workspace's plan), someone deactivated, not
 * visible to the bot, a bot, another organization's person (Slack Connect), or a DM the workspace
 * does not allow. The others are skipped and messaged; anything else (the rate limit, Slack having
 * a problem) fails the ping, to be tried again with the event.
 */
const GROUP_GONE = new Set(['no_such_subteam', 'plan_upgrade_required']);
const PERSON_UNREACHABLE = new Set([
  'user_not_found',
  'user_not_visible',
  'user_disabled',
  'cannot_dm_bot',
  'method_not_supported_for_channel_type',
  // Another organization's person (Slack Connect): a bot cannot open a DM with them.
  'invalid_user_combination',
  // A DM the workspace does not allow, as any channel that refuses the bot for good.
  ...Object.keys(CHANNEL_REFUSALS),
]);
const refused = (error: unknown, codes: Set<string>): boolean =>
  (error as { code?: string }).code === ErrorCode.PlatformError &&
  codes.has(String((error as { data?: { error?: string } }).data?.error));

export function createReviewerPings(deps: {
  client: WebClient;
  pool: pg.Pool;
  audience: Audience;
  logger: Logger;
}): PingReviewers {
  const { client, pool } = deps;
  const skipped = (what: object, error: unknown) =>
    deps.logger.warn(
      { ...what, slack: (error as { data?: { error?: string } }).data?.error },
      'a reviewer cannot be messaged directly; the others are',
    );
  // A person's DM channel never changes: asked once per process, and a card's link once for good
  // (permalinks.ts), so that a round of reminders costs Slack one post per person.
  const dmChannels = new Map<string, string>();
  const permalinks = createPermalinks({ client, pool, logger: deps.logger });
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
      if (r === 'requester') {
        if (isPerson(task.requester)) users.add(task.requester);
      } else if (isPerson(r)) users.add(r);
      else if (r.startsWith('S')) {
        try {
          // In the task's workspace: an org-wide install must name it (a workspace's ignores it).
          const team = workspaceOf(task);
          const listed = await client.usergroups.users.list({
            usergroup: r,
            ...(team ? { team_id: team } : {}),
          });
          for (const u of listed.users ?? []) users.add(u);
        } catch (error) {
          if (!refused(error, GROUP_GONE)) throw error;
          skipped({ group: r }, error);
        }
      }
    }
    return [...users];
  };

  return async (task, review, why, retried = false, only) => {
    const card = await findPost(pool, cardKey(review.id));
    if (!card) return;
    // Slack not giving the link is a temporary failure: the ping is tried again with the event.
    const permalink = await permalinks.of(card);
    const title = escapeMrkdwn(truncate(review.request.title, 200));
    // The title is the workflow's (an agent's) words: text, never a link's label, where an
    // address typed in it would show one place and open another; the link is on a word of its own.
    const text =
      why === 'request'
        ? `${who(task.requester)}'s *${escapeMrkdwn(task.workflow)}* task needs your review: *${title}* (<${permalink}|view>)`
        : why.startsWith('escalated:')
          ? `:arrow_double_up: Nobody decided in time, so *${title}* (${who(task.requester)}'s *${escapeMrkdwn(task.workflow)}* task) is escalated to you: <${permalink}|view>`
          : `:alarm_clock: Reminder: *${title}* is still waiting for your review: <${permalink}|view>`;
    // Nobody hears of a review from a channel they are not in (a private channel stays private).
    // Slack not saying who is in it is a temporary failure: the ping is tried again with the event.
    const members = await deps.audience.membersOf(task);
    // Whoever approved already (N of M) is not asked again.
    const approved = new Set((review.approvals ?? []).flatMap((a) => (a.for ? [a.by, a.for] : [a.by])));
    for (const user of await people(task, only ?? review.settings.reviewers)) {
      if (!members.has(user) || approved.has(user)) continue;
      const key = why === 'request' ? `dm:${review.id}:${user}` : `dm:${why}:${user}`;
      if (await findPost(pool, key)) continue;
      try {
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
      } catch (error) {
        if (!refused(error, PERSON_UNREACHABLE)) throw error;
        skipped({ user, review: review.id }, error);
      }
    }
  };
}
