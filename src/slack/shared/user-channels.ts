/**
 * The channels a person is in, asked of Slack once per person (`users.conversations` with their
 * id and the bot's token: the channels, public or private, that the bot shares with them, which
 * is everywhere a card can be), every page of up to 999. Slack's answer is kept
 * a minute in Postgres, for every process: the Home tab, its pages and `/signoff list` read it
 * without asking again. Asking channel by channel (conversations.members, Tier 4) spent a call per
 * channel with a waiting review: with fifty such channels most went unanswered on a first open,
 * and the Home tab counted only the rest.
 */
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Queryable } from '../../db/queryable.js';

/** How long Slack's answer stands: someone who left a channel stops seeing it within this. */
export const USER_CHANNELS_TTL_MS = 60_000;

/** Slack's most per page of users.conversations. */
const PAGE = 999;

export interface UserChannels {
  /** The channels `user` is in (see above); rejects when Slack did not answer every page. */
  of(user: string): Promise<ReadonlySet<string>>;
}

const pageSchema = z.object({ channels: z.array(z.object({ id: z.string() })).default([]) });
const rowSchema = z.object({ channels: z.array(z.string()) });

export function createUserChannels(deps: { client: WebClient; db: Queryable; ttlMs?: number }): UserChannels {
  const ttlMs = deps.ttlMs ?? USER_CHANNELS_TTL_MS;
  // Asks under way, so that the Home tab's parts, drawn at once, share one.
  const asking = new Map<string, Promise<ReadonlySet<string>>>();

  const ask = async (user: string): Promise<ReadonlySet<string>> => {
    // The database's clock, so that every process agrees on what is fresh.
    const kept = await deps.db.query(
      `SELECT channels FROM signoff.slack_user_channels
       WHERE user_id = $1 AND answered_at > now() - make_interval(secs => $2::float8 / 1000)`,
      [user, ttlMs],
    );
    const row = rowSchema.safeParse(kept.rows[0]);
    if (row.success) return new Set(row.data.channels);
    const channels = new Set<string>();
    const pages = deps.client.paginate('users.conversations', {
      user,
      types: 'public_channel,private_channel',
      limit: PAGE,
    });
    for await (const page of pages) for (const c of pageSchema.parse(page).channels) channels.add(c.id);
    await deps.db.query(
      `INSERT INTO signoff.slack_user_channels (user_id, channels, answered_at) VALUES ($1, $2, now())
       ON CONFLICT (user_id) DO UPDATE SET channels = EXCLUDED.channels, answered_at = EXCLUDED.answered_at`,
      [user, [...channels]],
    );
    return channels;
  };

  return {
    of: (user) => {
      const under = asking.get(user);
      if (under) return under;
      const answer = ask(user).finally(() => asking.delete(user));
      asking.set(user, answer);
      return answer;
    },
  };
}
