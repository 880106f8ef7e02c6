/**
 * A person's reply in a task's thread while a review is pending counts as Revise with that text
 * (if they may review); the card updates as for a button. Replies while agents work are left to
 * the redirect behaviour (seed 003).
 */
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { decideFromSlack } from '../../decide.js';
import type { ListenerDeps } from '../../deps.js';
import { slackTaskId } from '../../origin.js';

export function createThreadReply(deps: ListenerDeps) {
  return async ({ event, body, client }: SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs) => {
    // Only plain messages by people, inside a thread (not the root, not bots, not edits).
    if (
      event.subtype !== undefined ||
      !('thread_ts' in event) ||
      !event.thread_ts ||
      event.thread_ts === event.ts
    )
      return;
    if ('bot_id' in event && event.bot_id) return;
    const user = 'user' in event ? event.user : undefined;
    const text = ('text' in event ? event.text : '')?.trim();
    if (!user || !text) return;
    const taskId = slackTaskId({ team: body.team_id, channel: event.channel, ts: event.thread_ts });
    const task = await deps.engine.getTask(taskId);
    if (task?.status !== 'waiting') return;
    const pending = (await deps.engine.reviews(taskId, 'pending')).filter((r) =>
      r.request.actions.includes('revise'),
    );
    const tell = (t: string) =>
      client.chat
        .postEphemeral({ channel: event.channel, user, text: t, thread_ts: event.thread_ts })
        .catch(() => undefined);
    if (pending.length !== 1) {
      if (pending.length > 1)
        await tell('Several reviews are waiting in this thread; use the buttons on the card you mean.');
      return;
    }
    const review = pending[0] as (typeof pending)[number];
    await decideFromSlack(deps, client, {
      click: { review: review.id, task: taskId },
      user,
      channel: event.channel,
      action: 'revise',
      feedback: text,
      threadTs: event.thread_ts,
    });
  };
}
