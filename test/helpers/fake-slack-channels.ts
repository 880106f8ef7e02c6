/**
 * `users.conversations` as Slack answers a bot token (docs.slack.dev, "users.conversations"): the
 * conversations the bot is party to, of the `types` asked (`public_channel` by default), in pages
 * of `limit` (100 by default, at most 999) with opaque cursors. With a `user`, "filters to
 * conversations your bot shares with that user" (the method's "Token support"): a channel, public
 * or private, the bot is not in is never listed, whoever is in it (the page's general words, that
 * other users' public channels can be browsed, are the more lenient reading; the fake takes the
 * stricter). `user_not_found` for a malformed or unknown id; an org-wide token must name the
 * workspace (`team_id`, "required if org token is used").
 */
import { type PageRule, pageOf } from './fake-slack-pages.js';

/** users.conversations: 100 by default, up to 999. */
export const USER_CONVERSATIONS_PAGES: PageRule = { defaultLimit: 100, maxLimit: 999 };

const TYPES = new Set(['public_channel', 'private_channel', 'mpim', 'im']);

/** What of the fake workspace the answer depends on. */
export interface ChannelsState {
  bot: string;
  /** Every channel the workspace has, in the order Slack lists them. */
  channels: string[];
  /** Who is in a channel (`members` of the fake, else everyone in `people`). */
  membersOf(channel: string): string[];
  /** Whether the bot is in the channel (not in the fake's `notJoined`). */
  botIn(channel: string): boolean;
  isPrivate(channel: string): boolean;
  /** `users.info`'s overrides for a user: `null` is no such person. */
  known(user: string): boolean;
  orgWide: boolean;
}

export function usersConversations(state: ChannelsState, args: Record<string, unknown>): object {
  if (state.orgWide && !args.team_id) return { ok: false, error: 'missing_argument' };
  const user = args.user === undefined || args.user === '' ? state.bot : String(args.user);
  if (user !== state.bot && (!/^[UW][A-Z0-9]{2,}$/.test(user) || !state.known(user)))
    return { ok: false, error: 'user_not_found' };
  const types = String(args.types ?? 'public_channel')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (!types.length || types.some((t) => !TYPES.has(t))) return { ok: false, error: 'invalid_types' };
  const listed = state.channels.filter((c) => {
    const kind = state.isPrivate(c) ? 'private_channel' : 'public_channel';
    // Only where the bot is (the bot's token is the caller), and `user` too.
    if (!types.includes(kind) || !state.botIn(c)) return false;
    return user === state.bot || state.membersOf(c).includes(user);
  });
  const page = pageOf(
    listed,
    args,
    `users.conversations:${user}:${types.join(',')}`,
    USER_CONVERSATIONS_PAGES,
  );
  if ('error' in page) return { ok: false, error: page.error };
  return {
    ok: true,
    // Slack's conversation objects here carry neither is_member nor num_members.
    channels: page.page.map((id) => ({
      id,
      is_channel: !state.isPrivate(id),
      is_group: false,
      is_private: state.isPrivate(id),
      is_im: false,
      is_mpim: false,
    })),
    response_metadata: page.meta.response_metadata,
  };
}
