/**
 * Who may see a task: the members of its channel. The Home tab, `/signoff list` and reviewers'
 * DMs show a review only to them, so a private channel's work never shows up elsewhere. Which of
 * many channels a person is in comes from one question about them (user-channels.ts); a channel's
 * members from Slack (`conversations.members`, every page, 999 at a time), kept for a short
 * while: a list of twenty reviews in two channels asks twice, not twenty times. When Slack cannot
 * say, the answer is no (nothing is shown rather than too much), and `among` says which channels
 * were left unchecked, so that a list can say it may be missing some; the failure is logged.
 */
import type { WebClient } from '@slack/web-api';
import type { Task } from '../../engine/index.js';
import type { Logger } from '../../logger.js';
import { isDirectMessage, slackOriginSchema } from './origin.js';
import { ttlCache } from './ttl-cache.js';
import type { UserChannels } from './user-channels.js';

/** How long a channel's members are trusted: someone removed stops seeing it within this. */
export const MEMBERS_TTL_MS = 60_000;
/**
 * How long a DM's are: a DM (an id starting with D) is the app and one person for as long as it
 * exists, so its members never change; a day keeps the cache from holding every DM for ever.
 */
export const DM_MEMBERS_TTL_MS = 86_400_000;

export interface Audience {
  /** The members of the task's channel (none for a task not in one); throws when Slack cannot say. */
  membersOf(task: Task): Promise<ReadonlySet<string>>;
  /** Whether `user` is in the channel the task lives in; false when Slack cannot say. */
  sees(user: string, task: Task): Promise<boolean>;
  /** Whether `user` is in `channel`; false when Slack cannot say. */
  seesChannel(user: string, channel: string): Promise<boolean>;
  /** The items whose task `user` may see, in their order. */
  visible<T extends { task: Task }>(user: string, items: T[]): Promise<T[]>;
  /**
   * Which of `places` (channels) `user` is in, and which Slack left unanswered just now (neither
   * seen nor ruled out: a list drawn from `seen` alone may be missing their work).
   */
  among(user: string, places: readonly string[]): Promise<Among>;
}

export interface Among {
  seen: string[];
  unchecked: string[];
}

/** Slack's most per page of conversations.members ("a limit value under 1000"). */
const MEMBERS_PAGE = 999;

export function createAudience(deps: {
  client: WebClient;
  logger: Logger;
  /** A person's channels in one question; without it (or when it fails), channel by channel. */
  userChannels?: UserChannels;
  ttlMs?: number;
  now?: () => number;
}): Audience {
  const ask = async (channel: string): Promise<ReadonlySet<string>> => {
    const members = new Set<string>();
    for await (const page of deps.client.paginate('conversations.members', {
      channel,
      limit: MEMBERS_PAGE,
    })) {
      for (const m of (page as { members?: string[] }).members ?? []) members.add(m);
    }
    return members;
  };
  // A failed answer is not kept: the next look asks again.
  const now = deps.now ?? Date.now;
  const ofChannel = ttlCache(ask, { ttlMs: deps.ttlMs ?? MEMBERS_TTL_MS, now });
  const ofDm = ttlCache(ask, { ttlMs: DM_MEMBERS_TTL_MS, now });
  const inChannel = (channel: string) => (isDirectMessage(channel) ? ofDm(channel) : ofChannel(channel));

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

  /** Channel by channel, through each channel's members (kept a minute for everyone). */
  const oneByOne = async (user: string, places: readonly string[]): Promise<Among> => {
    const answers = await Promise.all(
      places.map((p) =>
        inChannel(p).then(
          (members) => members.has(user),
          (error) => {
            deps.logger.warn(
              { err: error, channel: p },
              'could not read a channel’s members; left unchecked',
            );
            return undefined;
          },
        ),
      ),
    );
    return {
      seen: places.filter((_, i) => answers[i] === true),
      unchecked: places.filter((_, i) => answers[i] === undefined),
    };
  };

  /** Which of `places` (channels) `user` is in: from the channels they are in, asked once. */
  const inChannels = async (user: string, places: readonly string[]): Promise<Among> => {
    if (!places.length) return { seen: [], unchecked: [] };
    if (deps.userChannels) {
      try {
        const theirs = await deps.userChannels.of(user);
        return { seen: places.filter((p) => theirs.has(p)), unchecked: [] };
      } catch (error) {
        // Rate-limited, or an org-wide install (which must name a workspace): each channel's
        // members, which every person shares, may still answer for some.
        deps.logger.warn(
          { err: error, user },
          'could not read the channels someone is in; asking channel by channel',
        );
      }
    }
    return oneByOne(user, places);
  };

  const among = async (user: string, places: readonly string[]): Promise<Among> => {
    // The channels someone is in (users.conversations) leave out DMs: a task of the Messages tab
    // lives in one, whose members are asked of it.
    const dms = places.filter(isDirectMessage);
    const [ofDms, ofChannels] = await Promise.all([
      oneByOne(user, dms),
      inChannels(
        user,
        places.filter((p) => !isDirectMessage(p)),
      ),
    ]);
    const seen = new Set([...ofDms.seen, ...ofChannels.seen]);
    const unchecked = new Set([...ofDms.unchecked, ...ofChannels.unchecked]);
    return { seen: places.filter((p) => seen.has(p)), unchecked: places.filter((p) => unchecked.has(p)) };
  };

  return {
    among,
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
