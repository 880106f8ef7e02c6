import { z } from 'zod';

/** Where a Slack task lives: its root message is the thread. */
export const slackOriginSchema = z.object({ team: z.string(), channel: z.string(), ts: z.string() });
export type SlackOrigin = z.infer<typeof slackOriginSchema>;

/** The task id names the thread: anything said in it finds the task. */
export const slackTaskId = (o: SlackOrigin) => `slack-${o.team}-${o.channel}-${o.ts}`;
