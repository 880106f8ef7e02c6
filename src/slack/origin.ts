import { z } from 'zod';

/** Where a Slack task lives: its root message is the thread. */
export const slackOriginSchema = z.object({ team: z.string(), channel: z.string(), ts: z.string() });
export type SlackOrigin = z.infer<typeof slackOriginSchema>;

/** The task id names the thread: anything said in it finds the task. */
export const slackTaskId = (o: SlackOrigin) => `slack-${o.team}-${o.channel}-${o.ts}`;

/** The root message a button was clicked on (from Slack's signed payload), if it says. */
export function clickedMessage(body: {
  channel?: { id: string };
  container?: { channel_id?: string; message_ts?: string };
  message?: { ts: string };
  team?: { id: string } | null;
  user: { team_id?: string };
}): SlackOrigin | undefined {
  const channel = body.channel?.id ?? body.container?.channel_id;
  const ts = body.message?.ts ?? body.container?.message_ts;
  const team = body.team?.id ?? body.user.team_id;
  return channel && ts && team ? { team, channel, ts } : undefined;
}
