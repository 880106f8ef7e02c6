import { z } from 'zod';
import type { Engine, Task } from '../../engine/index.js';

/**
 * Where a Slack task lives: a thread, named by its channel and its first message's ts (`ts`). A
 * channel's id is the same in every workspace that sees it (an Enterprise Grid organization's
 * channels, a Slack Connect channel), so the channel and `ts` name the thread wherever a payload
 * comes from. `team`: the workspace the task was started from, as the payload said (kept for the
 * record; never a key).
 *
 * In a channel the bot's root message (status, plan, buttons) starts the thread: `ts` is both.
 * In the app's Messages tab every message of the person's is a conversation of its own, so a task
 * started there lives in that message's thread (`ts`), and its root is the bot's reply in it
 * (`root`). Origins recorded before `root` existed have none: their root is `ts`.
 */
export const slackOriginSchema = z.object({
  team: z.string().optional(),
  channel: z.string(),
  ts: z.string(),
  root: z.string().optional(),
});
export type SlackOrigin = z.infer<typeof slackOriginSchema>;

/** A direct message with the app (the Messages tab): Slack's ids of DMs start with D. */
export const isDirectMessage = (channel: string) => channel.startsWith('D');

/** The task's root message (the one whose status, plan and buttons are edited): `root`, else the thread's first. */
export const rootOf = (origin: SlackOrigin): { channel: string; ts: string } => ({
  channel: origin.channel,
  ts: origin.root ?? origin.ts,
});

/** The workspace a Slack task was started from, if its origin says (where its user groups are looked up). */
export const workspaceOf = (task: Task | undefined): string | undefined =>
  slackOriginSchema.safeParse(task?.origin).data?.team;

/** A thread in Slack: its channel and its root message's ts. */
export type SlackThread = Pick<SlackOrigin, 'channel' | 'ts'>;

/**
 * The id a task started in this thread gets. It names no workspace: a command from one workspace
 * and a click or reply from another (Grid, Slack Connect) name different teams.
 */
export const slackTaskId = (t: SlackThread) => `slack-${t.channel}-${t.ts}`;

/**
 * The task of a thread, found by the thread and not by an id rebuilt from the payload: tasks
 * started before ids stopped naming a workspace (slack-<team>-<channel>-<ts>) are found too.
 */
export const taskInThread = (engine: Pick<Engine, 'taskAt'>, t: SlackThread): Promise<Task | undefined> =>
  engine.taskAt('slack', { channel: t.channel, thread: t.ts });

/**
 * The thread of the root message a button was clicked on (from Slack's signed payload), if it
 * says. A root that is a reply (a task from the Messages tab) names its thread in `thread_ts`; a
 * channel's root starts its thread (its `thread_ts`, once it has replies, is its own ts). Which
 * team the payload names (`team` is the clicker's workspace, or null in an org-wide install) does
 * not matter: the channel and the thread name the task.
 */
export function clickedMessage(body: {
  channel?: { id: string };
  container?: { channel_id?: string; message_ts?: string; thread_ts?: string };
  message?: { ts: string; thread_ts?: string };
}): SlackThread | undefined {
  const channel = body.channel?.id ?? body.container?.channel_id;
  const ts =
    body.message?.thread_ts ?? body.container?.thread_ts ?? body.message?.ts ?? body.container?.message_ts;
  return channel && ts ? { channel, ts } : undefined;
}
