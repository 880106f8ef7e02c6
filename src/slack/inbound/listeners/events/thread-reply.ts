/**
 * A person's reply in a task's thread. While a review is pending, what it means is the review's
 * to say (reply-at-review.ts): feedback when addressed to the bot, else a private question to its
 * author, never a decision it did not state. While agents work it redirects the task (seed 003)
 * only when it means to: addressed to the bot (a mention or "redirect:", or any reply where the
 * workflow says so), from someone the workflow lets redirect; anything else (a colleague's "+1")
 * is left alone. A reply also sent to the channel counts the same, and so does one with a file
 * (reply-files.ts: its words, and a line naming the files); an event Slack sends again is handled
 * once. The task is the thread's, whichever workspace the reply comes from (Enterprise Grid, Slack
 * Connect): the payload's team is not part of it. When the database fails, only a reply addressed
 * to the bot hears of it (a reviewer's plain reply hears of it once it is known to be theirs,
 * reply-at-review.ts).
 */
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { isSignoffError } from '../../../../errors.js';
import { taskInThread } from '../../../shared/origin.js';
import { claimRequest } from '../../claims.js';
import { slackActor } from '../../decide.js';
import { COULD_NOT_RECORD, type ListenerDeps } from '../../deps.js';
import { replyAtReview } from '../../reply-at-review.js';
import { filesOf, withFiles } from '../../reply-files.js';
import { tellClicker } from '../../tell-clicker.js';

/** The word that addresses the bot at the start of a reply: "redirect:" while agents work, "revise:" at a review. */
const PREFIXES = { redirect: /^redirect:\s*/i, revise: /^revise:\s*/i } as const;

/** Replies by people: plain, also sent to the channel, or with files. */
const REPLY_SUBTYPES: (string | undefined)[] = [undefined, 'thread_broadcast', 'file_share'];

/** A reply addressed to the bot that has files and no words: nothing the agents could read. */
export const FILES_ALONE =
  'The agents cannot open files, so a file alone changes nothing. Say in words what you mean (keep the file for the people here).';

/**
 * What a reply says and whether it is addressed to the bot: a mention of it anywhere (taken out
 * of the text) or a leading "redirect:" or "revise:" (as `prefix` says; taken off).
 */
export function readReply(
  text: string,
  botUserId: string | undefined,
  prefix: keyof typeof PREFIXES = 'redirect',
): { text: string; addressed: boolean } {
  const mention = botUserId ? new RegExp(`<@${botUserId}(\\|[^>]*)?>`, 'g') : undefined;
  const mentioned = mention ? mention.test(text) : false;
  const unmentioned = mention ? text.replace(mention, ' ').replace(/\s+/g, ' ').trim() : text.trim();
  const word = PREFIXES[prefix];
  if (word.test(unmentioned)) return { text: unmentioned.replace(word, ''), addressed: true };
  return { text: unmentioned, addressed: mentioned };
}

export function createThreadReply(deps: ListenerDeps) {
  return async ({
    event,
    body,
    client,
    context,
  }: SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs) => {
    // Only messages by people inside a thread (not the root, not bots, not edits or deletions);
    // "Also send to channel" replies and replies with files count like any other.
    if (!REPLY_SUBTYPES.includes(event.subtype)) return;
    if (!('thread_ts' in event) || !event.thread_ts || event.thread_ts === event.ts) return;
    if ('bot_id' in event && event.bot_id) return;
    const user = 'user' in event ? event.user : undefined;
    const said = ('text' in event ? event.text : '') ?? '';
    const files = filesOf(event);
    if (!user || (!said.trim() && files.length === 0)) return;
    const threadTs = event.thread_ts;
    // In a Slack Connect channel the author's own workspace (another organization's) is here.
    const team = 'user_team' in event && typeof event.user_team === 'string' ? event.user_team : undefined;
    // Whether the reply was meant for the bot ("redirect:", "revise:" or a mention), known without
    // the database: only then is its author told that it failed. Colleagues talk in threads.
    const meant = (['redirect', 'revise'] as const).some(
      (p) => readReply(said, context.botUserId, p).addressed,
    );
    // Slack has its ack already (Events API requests are acked before listeners run); the work
    // waits behind a burst of clicks like any other work after an ack.
    await deps.afterAck.run(async () => {
      const tell = tellClicker({ client, logger: deps.logger }, { channel: event.channel, user, threadTs });
      try {
        // Slack sends an event again when its ack was late: the same event_id, handled once.
        if (body.event_id && !(await claimRequest(deps.pool, `event:${body.event_id}`))) return;
        // The envelope's team_id is the workspace the message was posted from: another one's in
        // a Grid organization or a Slack Connect channel. The thread alone names the task.
        const task = await taskInThread(deps.engine, { channel: event.channel, ts: threadTs });
        if (task?.status !== 'working' && task?.status !== 'waiting') return;
        const reply = readReply(said, context.botUserId, task.status === 'working' ? 'redirect' : 'revise');
        if (!reply.text) {
          if (files.length > 0 && reply.addressed) await tell(FILES_ALONE);
          return;
        }
        const text = withFiles(reply.text, files);
        if (task.status === 'working') {
          const actor = await slackActor(deps.directory, user, team);
          // When the words were written (Slack's ts, however late the event): words written before
          // a person decided one of its reviews are refused by the engine, with a sentence.
          const seconds = Number(event.ts);
          const writtenAt = Number.isFinite(seconds) ? new Date(seconds * 1000) : undefined;
          await deps.engine.redirect(task.id, text, actor, { addressed: reply.addressed, writtenAt });
          return;
        }
        await replyAtReview(
          deps,
          client,
          { task, channel: event.channel, threadTs, ts: event.ts, user, team, ...reply, text },
          tell,
        );
      } catch (error) {
        // A reply that does not address the bot is not meant for it: nothing to say.
        if (isSignoffError(error) && error.code === 'not_addressed') return;
        if (isSignoffError(error)) await tell(error.message);
        else {
          deps.logger.error({ err: error }, 'thread reply failed');
          if (meant) await tell(COULD_NOT_RECORD);
        }
      }
    });
  };
}
