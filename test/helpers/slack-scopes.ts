/**
 * What each Web API method signoff calls needs with a bot token (docs.slack.dev, each method's
 * "Scopes"), and the scopes the app asks for (manifest.yml). The fake Slack answers
 * `missing_scope` as Slack does for a method whose scope the app lacks, and the manifest test
 * checks the app asks for exactly what its methods need.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** The conversations.* methods, whose scope depends on the kind of conversation (see `scopeNeeded`). */
const BY_KIND: Record<string, 'read' | 'history' | 'write'> = {
  'conversations.history': 'history',
  'conversations.replies': 'history',
  'conversations.members': 'read',
  'conversations.info': 'read',
};

export const METHOD_SCOPES: Record<string, string[]> = {
  // The Messages tab: its suggested prompts, and a DM task's thinking status (which takes
  // chat:write, or assistant:write for now; Slack is moving it to chat:write alone).
  'assistant.threads.setSuggestedPrompts': ['assistant:write'],
  'assistant.threads.setStatus': ['chat:write'],
  'auth.test': [],
  'chat.delete': ['chat:write'],
  'chat.getPermalink': [],
  'chat.postEphemeral': ['chat:write'],
  'chat.postMessage': ['chat:write'],
  'chat.update': ['chat:write'],
  // Agents' words streamed as they are written (a message of its own, under the agent's name).
  'chat.startStream': ['chat:write'],
  'chat.appendStream': ['chat:write'],
  'chat.stopStream': ['chat:write'],
  // Task channels (public, private) to find a root or a post; a reviewer's DM to find a ping.
  'conversations.history': ['channels:history', 'groups:history', 'im:history'],
  // Who is in a task's channel, a DM (the Messages tab's) included.
  'conversations.members': ['channels:read', 'groups:read', 'im:read'],
  // Whether signoff is in a channel (/signoff list says how to invite it when not), a DM's too.
  'conversations.info': ['channels:read', 'groups:read', 'im:read'],
  'conversations.open': ['im:write'],
  // Replies in a task's thread, a DM task's included.
  'conversations.replies': ['channels:history', 'groups:history', 'im:history'],
  'usergroups.users.list': ['usergroups:read'],
  'users.info': ['users:read'],
  // The channels a person is in (public, and private ones signoff shares): what their Home and list show.
  'users.conversations': ['channels:read', 'groups:read'],
  'views.open': [],
  'views.publish': [],
  'views.update': [],
};

/**
 * The scopes a call needs: each of the groups returned, by any one scope of the group. A
 * conversations.* method needs the one of its conversation's kind (a DM `im:`; a channel
 * `channels:` or `groups:`, which the fake does not tell apart); any other method each of its own.
 */
export function scopesNeeded(method: string, args: Record<string, unknown>): string[][] {
  const kind = BY_KIND[method];
  if (kind) {
    const channel = String(args.channel ?? '');
    return [channel.startsWith('D') ? [`im:${kind}`] : [`channels:${kind}`, `groups:${kind}`]];
  }
  return (METHOD_SCOPES[method] ?? []).map((s) => [s]);
}

/** The bot scopes manifest.yml asks for: what an app installed from it has. */
export const MANIFEST_SCOPES: readonly string[] = (
  parse(readFileSync(join(import.meta.dirname, '..', '..', 'manifest.yml'), 'utf8')) as {
    oauth_config: { scopes: { bot: string[] } };
  }
).oauth_config.scopes.bot;
