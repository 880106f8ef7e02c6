/**
 * A person's reply in a task's thread while a review is pending counts as Revise with that text
 * (if they may review); the card updates as for a button. While agents work, a reply redirects
 * the task (seed 003): the step in flight stops and the agents start over on the new goal.
 */
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { isSignoffError } from '../../../errors.js';
import { decideFromSlack, memberOf } from '../../decide.js';
import { COULD_NOT_RECORD, type ListenerDeps } from '../../deps.js';
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
    const threadTs = event.thread_ts;
    // Slack has its ack already (Events API requests are acked before listeners run); the work
    // waits behind a burst of clicks like any other work after an ack.
    await deps.afterAck.run(async () => {
      const taskId = slackTaskId({ team: body.team_id, channel: event.channel, ts: threadTs });
      const task = await deps.engine.getTask(taskId);
      const tell = (t: string) =>
        client.chat
          .postEphemeral({ channel: event.channel, user, text: t, thread_ts: threadTs })
          .catch(() => undefined);
      if (task?.status === 'working') {
        await deps.engine
          .redirect(taskId, text, { id: user, memberOf: memberOf(client, user) })
          .catch(async (error) => {
            if (isSignoffError(error)) await tell(error.message);
            else {
              deps.logger.error({ err: { message: (error as Error).message } }, 'redirect failed');
              await tell(COULD_NOT_RECORD);
            }
          });
        return;
      }
      if (task?.status !== 'waiting') return;
      const pending = (await deps.engine.reviews(taskId, 'pending')).filter((r) =>
        r.request.actions.includes('revise'),
      );
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
        threadTs,
      });
    });
  };
}
