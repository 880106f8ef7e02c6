/**
 * A person's message to the app, in its Messages tab (a DM): one that names a workflow and a task
 * starts it there, as `/signoff <workflow> <task>` does in a channel (the same checks, start limits
 * and once-only start, the same root message, cards and rules). Each message there is a
 * conversation of its own (Slack's agent view), so the task lives in the message's thread: the
 * root is the bot's reply in it (after a sentence, when the start had to wait), and the task is named by the message. Any other message gets a short answer in its thread: how to start a task and which
 * workflows there are, or why that one cannot start. Replies in a task's thread are the thread's
 * (thread-reply.ts), as in a channel; messages by bots (the app's own) and edits are not read.
 */
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { isSignoffError } from '../../../../errors.js';
import { howToStart, readStart } from '../../../blocks/agent-view.js';
import { claimRequest } from '../../claims.js';
import { COULD_NOT_RECORD, type ListenerDeps } from '../../deps.js';
import { answerInThread } from '../../messages-tab.js';
import { startAfterAck } from '../../start-task.js';

export function createDirectMessage(deps: ListenerDeps) {
  const answer = (client: WebClient, at: { channel: string; ts: string }, text: string) =>
    answerInThread(client, deps.logger, at, text);

  /** Answers once per message (Slack sending the event again finds it claimed). */
  const answerOnce = (client: WebClient, at: { channel: string; ts: string }, key: string, text: string) =>
    deps.afterAck.run(async () => {
      try {
        if (!(await claimRequest(deps.pool, key))) return;
      } catch (err) {
        deps.logger.error({ err }, 'could not record a message in the Messages tab');
        return void (await answer(client, at, COULD_NOT_RECORD));
      }
      await answer(client, at, text);
    });

  return async ({ event, body, client }: SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs) => {
    // A person's own words, at the top of their DM with the app (no subtype: not an edit, a
    // deletion, a bot's post or a file).
    if (event.channel_type !== 'im' || event.subtype !== undefined) return;
    if ('thread_ts' in event && event.thread_ts && event.thread_ts !== event.ts) return;
    if ('bot_id' in event && event.bot_id) return;
    const user = 'user' in event ? event.user : undefined;
    const said = ('text' in event ? event.text : '') ?? '';
    if (!user) return;
    const at = { channel: event.channel, ts: event.ts };
    // The message names its start, or its answer: each is made once.
    const requestKey = `im:${event.channel}:${event.ts}`;
    const named = readStart(
      said,
      deps.engine.available().map((w) => w.name),
    );
    if (!named) return answerOnce(client, at, requestKey, howToStart(deps.engine.available(event.channel)));
    let text: string;
    try {
      text = deps.engine.validate({ workflow: named.workflow, text: named.task, channel: event.channel });
    } catch (error) {
      if (!isSignoffError(error)) throw error;
      return answerOnce(client, at, requestKey, error.message);
    }
    await startAfterAck(deps, client, {
      requestKey,
      team: body.team_id,
      channel: event.channel,
      user,
      workflow: named.workflow,
      text,
      thread: event.ts,
    });
  };
}
