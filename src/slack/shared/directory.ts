/**
 * Who a Slack user is, as far as a right to decide goes: which user groups they are in, and
 * whether they come from outside this workspace's organization (Slack Connect) or are a guest.
 * Every answer is kept for a while (a minute by default) for every user and every request: one
 * `usergroups.users.list` a group, one `users.info` a person; callers at the same moment share
 * one call, and a failure is not kept. When Slack does not answer, `inGroup` rejects (the engine
 * tells whoever's right hinged on that group to try again). `standing` then serves the last answer
 * Slack gave about that person (for up to a day), kept in Postgres (`StandingStore`) so that it
 * holds in every replica and after a restart: a `users.info` outage locks out no reviewer Slack
 * has answered for before; of someone it never answered for it is 'unknown' (refused where
 * people from outside are, with a sentence to try again). Reviewers named by id are not asked
 * about at all (decide.ts's `slackActor`).
 */
import { ErrorCode, type WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Logger } from '../../logger.js';
import { ttlCache } from './ttl-cache.js';

/** How long an answer is trusted: someone removed from a group loses its rights within this. */
export const DIRECTORY_TTL_MS = 60_000;

/**
 * How long the last answer about a person stands in while Slack does not answer: a person who
 * becomes a guest keeps a member's standing at most this long, and only while Slack is failing.
 */
export const STANDING_KEPT_MS = 24 * 3600_000;

/** `member` of this organization; `external`: another organization's, or a guest; `unknown`: Slack did not say. */
export type Standing = 'member' | 'external' | 'unknown';
/** An answer Slack gave. */
export type Placed = Exclude<Standing, 'unknown'>;

/** Where the last answer about each person is kept, and when Slack gave it (ms since the epoch). */
export interface StandingStore {
  read(user: string): Promise<{ standing: Placed; at: number } | undefined>;
  write(user: string, standing: Placed, at: number): Promise<void>;
}

export interface Directory {
  /**
   * Whether `user` is in the user group; rejects when Slack does not say. `teams`: the workspaces
   * the group is looked up in, in turn (the review's, then the person's own). An app installed for
   * a whole Enterprise organization must name one ("required if org token is used"), and a group
   * lives in one workspace of the organization: where none of them has it, Slack has not said
   * (it rejects), for the group may be in a workspace not asked. A workspace's install has Slack
   * ignore the team: a group it does not know has nobody in it.
   */
  inGroup(user: string, group: string, teams?: readonly (string | undefined)[]): Promise<boolean>;
  /** Where `user` stands; `team`: the `user.team_id` their request carried, when it did. */
  standing(user: string, team?: string): Promise<Standing>;
}

/** The part of Slack's user object that says where someone belongs. */
const slackUserSchema = z.object({
  id: z.string(),
  team_id: z.string().optional(),
  is_restricted: z.boolean().optional(),
  is_ultra_restricted: z.boolean().optional(),
  is_stranger: z.boolean().optional(),
  enterprise_user: z.object({ enterprise_id: z.string().optional() }).optional(),
});
type SlackUser = z.infer<typeof slackUserSchema>;

const appSchema = z.object({
  team_id: z.string(),
  /** Installed for a whole Enterprise organization: a user group is asked about in a named workspace. */
  is_enterprise_install: z.boolean().optional(),
  enterprise_id: z
    .string()
    .optional()
    .transform((e) => e || undefined),
});

/** Slack's error code of a failed call, if Slack answered one. */
const slackError = (error: unknown): string | undefined =>
  (error as { code?: string }).code === ErrorCode.PlatformError
    ? (error as { data?: { error?: string } }).data?.error
    : undefined;

export function createDirectory(deps: {
  /** A client that gives up within seconds: a person waits for this answer. */
  client: WebClient;
  /** Slack's last answer about each person (Postgres: standing-store.ts), read before any transaction. */
  kept: StandingStore;
  logger: Logger;
  ttlMs?: number;
  now?: () => number;
}): Directory {
  const { client, logger } = deps;
  const options = { ttlMs: deps.ttlMs ?? DIRECTORY_TTL_MS, now: deps.now ?? Date.now };

  // Keyed by workspace and group: `team|group`. `null`: Slack says that workspace has no such
  // group (deleted since the config named it, or, org-wide, another workspace's): an answer, kept.
  const members = ttlCache(async (key): Promise<ReadonlySet<string> | null> => {
    const [team, group] = key.split('|') as [string, string];
    try {
      const args = { usergroup: group, ...(team ? { team_id: team } : {}) };
      return new Set((await client.usergroups.users.list(args)).users ?? []);
    } catch (error) {
      if (slackError(error) === 'no_such_subteam') return null;
      logger.warn({ err: error, group }, 'could not read a user group’s members');
      throw error;
    }
  }, options);

  // The app's own workspace and organization never change while it runs.
  const appOf = ttlCache(async () => appSchema.parse(await client.auth.test()), {
    ttlMs: Number.POSITIVE_INFINITY,
    now: options.now,
  });

  /** Where Slack places the person now; rejects when it does not answer. */
  const ask = async (user: string): Promise<Placed> => {
    const home = await appOf('self');
    let who: SlackUser | undefined;
    try {
      who = slackUserSchema.parse((await client.users.info({ user })).user);
    } catch (error) {
      // Someone this workspace cannot see is not one of its own.
      const code = slackError(error);
      if (code !== 'user_not_found' && code !== 'user_not_visible') throw error;
    }
    if (!who || who.is_restricted || who.is_ultra_restricted || who.is_stranger) return 'external';
    // In an Enterprise organization, a person of any of its workspaces is one of its own.
    const sameOrg = home.enterprise_id && who.enterprise_user?.enterprise_id === home.enterprise_id;
    return sameOrg || who.team_id === home.team_id ? 'member' : 'external';
  };

  /** The last answer kept about the person (none when the database does not answer either). */
  const keptAbout = (user: string) =>
    deps.kept.read(user).catch((err) => {
      logger.warn({ err, user }, 'could not read the last known standing of a person');
      return undefined;
    });

  // One answer a person a minute; each new one is kept for when Slack stops answering.
  const people = ttlCache(async (user): Promise<Placed> => {
    const placed = await ask(user);
    await deps.kept
      .write(user, placed, options.now())
      .catch((err) => logger.warn({ err, user }, 'could not keep the standing of a person'));
    return placed;
  }, options);

  return {
    inGroup: async (user, group, teams = []) => {
      // A workspace's install has one answer per group whatever the team (Slack ignores it), so
      // the Home tab and a click share it; org-wide, each workspace's (the app's own by default).
      const app = await appOf('self');
      if (!app.is_enterprise_install) {
        const listed = await members(`|${group}`);
        if (!listed) logger.warn({ group }, 'a user group named as reviewers does not exist in Slack');
        return listed?.has(user) ?? false;
      }
      const named = [...new Set(teams.filter((t): t is string => Boolean(t)))];
      const where = named.length ? named : [app.team_id];
      for (const team of where) {
        const listed = await members(`${team}|${group}`);
        if (listed) return listed.has(user);
      }
      logger.warn(
        { group, teams: where },
        'a user group named as reviewers is in none of the workspaces asked',
      );
      throw new Error(`Slack has no user group ${group} in ${where.join(', ')}`);
    },
    standing: async (user, team) => {
      try {
        const home = await appOf('self');
        // Another workspace's person, where this one belongs to no Enterprise organization.
        if (team && team !== home.team_id && !home.enterprise_id) return 'external';
        return await people(user);
      } catch (error) {
        const kept = await keptAbout(user);
        if (kept && options.now() - kept.at < STANDING_KEPT_MS) {
          logger.warn(
            { err: error, user, answeredAt: new Date(kept.at).toISOString() },
            'Slack did not say where a person belongs; going by its last answer',
          );
          return kept.standing;
        }
        logger.warn({ err: error, user }, 'could not read from Slack where a person belongs');
        return 'unknown';
      }
    },
  };
}
