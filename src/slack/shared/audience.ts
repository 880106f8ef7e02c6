/**
 * Who may see a task: the members of its channel. The Home tab, `/signoff list` and reviewers'
 * DMs show a review only to them, so a private channel's work never shows up elsewhere. Members
 * come from Slack (`conversations.members`, every page), kept for a short while: a list of
 * twenty reviews in two channels asks twice, not twenty times. When Slack cannot say, the
 * answer is no (nothing is shown rather than too much); the failure is logged.
 */
import type { WebClient } from '@slack/web-api';
import type { Task } from '../../engine/index.js';
import type { Logger } from '../../logger.js';
import { slackOriginSchema } from './origin.js';
import { ttlCache } from './ttl-cache.js';

/** How long a channel's members are trusted: someone removed stops seeing it within this. */
export const MEMBERS_TTL_MS = 60_000;

export interface Audience {
  /** The members of the task's channel (none for a task not in one); throws when Slack cannot say. */
  membersOf(task: Task): Promise<ReadonlySet<string>>;
  /** Whether `user` is in the channel the task lives in; false when Slack cannot say. */
  sees(user: string, task: Task): Promise<boolean>;
  /** Whether `user` is in `channel`; false when Slack cannot say. */
  seesChannel(user: string, channel: string): Promise<boolean>;
  /** The items whose task `user` may see, in their order. */
  visible<T extends { task: Task }>(user: string, items: T[]): Promise<T[]>;
}

export function createAudience(deps: {
  client: WebClient;
  logger: Logger;
  ttlMs?: number;
  now?: () => number;
}): Audience {
  const ask = async (channel: string): Promise<ReadonlySet<string>> => {
    const members = new Set<string>();
    for await (const page of deps.client.paginate('conversations.members', { channel, limit: 200 })) {
      for (const m of (page as { members?: string[] }).members ?? []) members.add(m);
    }
    return members;
  };
  // A failed answer is not kept: the next look asks again.
  const inChannel = ttlCache(ask, { ttlMs: deps.ttlMs ?? MEMBERS_TTL_MS, now: deps.now ?? Date.now });

  const seesChannel = async (user: string, channel: string): Promise<boolean> => {
    try {
      return (await inChannel(channel)).has(user);
    } catch (error) {
      deps.logger.warn(
        { err: error, channel },
        'could not read a channel’s members; its tasks are not shown',
      );
      return false;
    }
  };

  const sees = async (user: string, task: Task): Promise<boolean> => {
    const origin = slackOriginSchema.safeParse(task.origin);
    return origin.success ? seesChannel(user, origin.data.channel) : false;
  };

  return {
    membersOf: async (task) => {
      const origin = slackOriginSchema.safeParse(task.origin);
      return origin.success ? inChannel(origin.data.channel) : new Set();
    },
    sees,
    seesChannel,
    visible: async (user, items) => {
      const shown = await Promise.all(items.map((item) => sees(user, item.task)));
      return items.filter((_, i) => shown[i]);
    },
  };
}
