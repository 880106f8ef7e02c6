/**
 * Requests as Slack sends them from more than one workspace: an Enterprise Grid organization (one
 * org, many workspaces; the app installed in one of them or org-wide) and a Slack Connect channel
 * (a channel shared with another organization). The channel's id is the same for everyone; the
 * team a payload names is not: a command names the workspace it was typed in, a click the
 * clicker's (`team` is null for an org-wide install, as Bolt's own source notes), an event's
 * envelope the workspace the message was posted from, with the installation it is delivered to in
 * `authorizations` (docs: "Using APIs with organization-wide apps", "Slack Connect: working with
 * channels between organizations"; @slack/bolt's SlashCommand, BlockAction, EnvelopedEvent).
 */
import { commandBody, payloadBody, slackTsNow } from './slack-requests.js';

/** A workspace people act from. */
export interface Workspace {
  team: string;
  domain: string;
  /** Its Enterprise Grid organization, if any. */
  enterprise?: { id: string; name: string };
}

/** Where the app is installed: one workspace (`team`), or a whole organization (`orgWide`). */
export interface Install {
  team: string;
  enterprise?: string;
  orgWide?: boolean;
}

/** `/signoff <text>` typed by `user` in workspace `from`. */
export function commandFrom(text: string, user: string, from: Workspace, install: Install) {
  return commandBody(text, user, {
    team_id: from.team,
    team_domain: from.domain,
    ...(from.enterprise ? { enterprise_id: from.enterprise.id, enterprise_name: from.enterprise.name } : {}),
    is_enterprise_install: String(install.orgWide === true),
  });
}

/**
 * An interaction payload (a click, a modal's submission) as sent when its person is in workspace
 * `from`: `team` is theirs (null in an org-wide install), `user.team_id` too.
 */
export function interactionFrom(body: string, from: Workspace, install: Install): string {
  const payload = JSON.parse(new URLSearchParams(body).get('payload') ?? '{}');
  const team = install.orgWide
    ? null
    : {
        id: from.team,
        domain: from.domain,
        ...(from.enterprise
          ? { enterprise_id: from.enterprise.id, enterprise_name: from.enterprise.name }
          : {}),
      };
  return payloadBody({
    ...payload,
    team,
    user: { ...payload.user, team_id: from.team },
    enterprise: from.enterprise ?? null,
    is_enterprise_install: install.orgWide === true,
  });
}

let eventIds = 0;
/**
 * An Events API delivery of `event` posted by someone in workspace `from`, to the installation
 * `install`: the envelope's `team_id` is the workspace it happened in, `authorizations` names the
 * installation (its `team_id` null when org-wide), and a message carries its author's workspace
 * as `team`, `user_team` and `source_team`.
 */
export function eventFrom(event: Record<string, unknown>, from: Workspace, install: Install): string {
  // A channel shared with another organization is "externally shared" for everyone in it.
  const sameOrg = install.enterprise
    ? from.enterprise?.id === install.enterprise
    : !from.enterprise && from.team === install.team;
  return JSON.stringify({
    token: 'legacy',
    team_id: from.team,
    ...(from.enterprise ? { enterprise_id: from.enterprise.id } : {}),
    context_team_id: from.team,
    context_enterprise_id: from.enterprise?.id ?? null,
    api_app_id: 'A0APP',
    type: 'event_callback',
    event_id: `EvOrg${++eventIds}`,
    event_time: Math.floor(Date.now() / 1000),
    event:
      event.type === 'message'
        ? { ...event, team: from.team, user_team: from.team, source_team: from.team }
        : event,
    authorizations: [
      {
        enterprise_id: install.enterprise ?? null,
        team_id: install.orgWide ? null : install.team,
        user_id: 'U0BOT',
        is_bot: true,
        is_enterprise_install: install.orgWide === true,
      },
    ],
    is_ext_shared_channel: !sameOrg,
    event_context: `4-org-${eventIds}`,
  });
}

/** A reply by `user` in the thread `threadTs` of channel C0WORK (as slack-requests' threadMessage). */
export const replyEvent = (user: string, text: string, threadTs: string, channel = 'C0WORK') => ({
  type: 'message',
  channel,
  channel_type: 'channel',
  user,
  text,
  ts: slackTsNow(),
  thread_ts: threadTs,
  parent_user_id: 'U0BOT',
  event_ts: slackTsNow(),
});
