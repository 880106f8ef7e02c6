/**
 * Slack's answers to a post that are final: asking again gives the same answer, so whoever gets
 * one stops trying and says why. One list for the start path, the sink and the reviewer pings.
 * (Slack's chat.postMessage error list; `channel_not_found` is also a private channel the bot is
 * not in.)
 */
import { ErrorCode } from '@slack/web-api';

/** The bot was asked to start a task in a channel it is not in (Slack refuses its posts there). */
export const NOT_IN_CHANNEL =
  "I'm not in this channel yet, so I can't post the task here. Add me first: type `/invite @signoff` in this channel (or open the channel's details, Integrations, Add apps), then send your task again.";

/** The channel refuses the bot's posts: said to a person starting a task, and in a failed task. */
interface ChannelRefusal {
  /** Why the task cannot be posted, to the person who asked for it. */
  start: string;
  /** Why a running task's thread cannot be reached any more, and what to do before Retry. */
  thread: string;
}

const ADMINS_ONLY = {
  start:
    "Only admins may post here, so I can't post the task in this channel. Send it from another channel (or ask an admin to let me post here).",
  thread: 'only admins may post in this channel now; let signoff post here, then retry',
};

/** Refused for the channel: any post there gets the same answer. */
export const CHANNEL_REFUSALS: Readonly<Record<string, ChannelRefusal>> = {
  not_in_channel: {
    start: NOT_IN_CHANNEL,
    thread: 'signoff is not in this channel any more; invite it back (/invite @signoff), then retry',
  },
  channel_not_found: {
    start: NOT_IN_CHANNEL,
    thread:
      'signoff cannot find this channel any more (deleted, or private without signoff); retry once it is back',
  },
  is_archived: {
    start:
      "This channel is archived, so I can't post the task here. Unarchive it, or send your task from another channel.",
    thread: 'this channel was archived; unarchive it, then retry',
  },
  restricted_action: ADMINS_ONLY,
  restricted_action_read_only_channel: ADMINS_ONLY,
  restricted_action_thread_only_channel: {
    start:
      "This channel takes replies in threads only, so I can't post the task here. Send it from another channel.",
    thread: 'this channel now takes replies in threads only; allow posts, then retry',
  },
  team_access_not_granted: {
    start:
      "My workspace has no access to this channel, so I can't post the task here. Send it from a channel of your workspace (or ask an admin to grant signoff access).",
    thread: "signoff's workspace has no access to this channel any more; grant it, then retry",
  },
  ekm_access_denied: {
    start:
      "Your administrators have suspended posting here, so I can't post the task. Send it from another channel.",
    thread: 'administrators suspended posting in this channel; retry once they allow it',
  },
};

/** Refused for this message: the same message is refused again (the sink falls back to a plainer one). */
export const MESSAGE_REFUSALS: Readonly<Record<string, string>> = {
  invalid_blocks:
    'Slack refused the message for your task (invalid_blocks), so it was not started. Please tell whoever runs signoff.',
  msg_too_long:
    'Your task is too long for a Slack message, so it was not started. Please send a shorter one.',
};

/** The Slack error code of a Web API platform error (`ok: false`), else undefined. */
export function slackErrorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; data?: { error?: unknown } } | undefined;
  return e?.code === ErrorCode.PlatformError ? String(e.data?.error ?? '') : undefined;
}

/** What to tell a person whose start Slack refused for good; undefined when trying again may work. */
export function startRefusal(error: unknown): string | undefined {
  const code = slackErrorCode(error);
  if (code === undefined) return undefined;
  return CHANNEL_REFUSALS[code]?.start ?? MESSAGE_REFUSALS[code];
}
