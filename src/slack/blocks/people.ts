/**
 * People and times as a Slack message names them: mentions (a user group as @group, "anyone" in
 * words) and dates shown in each reader's own time zone.
 */
import { isPersonId } from '../../config/checkpoint.js';
import type { Review } from '../../engine/index.js';
import { escapeMrkdwn } from './text.js';

/** A person's Slack id, not an agent that asked through a door (`api:deploy-bot`). */
export const isPerson = isPersonId;

const DOOR_WORDS: Record<string, string> = { api: 'through the API', mcp: 'through MCP' };

/** Who asked, as a message names them: a person's mention, or the agent and its door in words. */
export function who(id: string): string {
  if (isPerson(id)) return `<@${id}>`;
  const [door, ...name] = id.split(':');
  const through = door ? DOOR_WORDS[door] : undefined;
  return through && name.length ? `*${escapeMrkdwn(name.join(':'))}* (${through})` : escapeMrkdwn(id);
}

/** `<!date^…>` shows the time in each reader's own time zone. */
export const slackDate = (iso: string) => {
  const seconds = Math.floor(new Date(iso).getTime() / 1000);
  return `<!date^${seconds}^{date_short_pretty} at {time}|${iso}>`;
};

/**
 * The people to mention besides the reviewers: notify (the requester by default), less those
 * already named.
 */
export function notified(review: Review, requester: string): string {
  const named = new Set(review.settings.reviewers.map((r) => (r === 'requester' ? requester : r)));
  // An agent asking through a door has nobody to ping.
  const extra = (review.settings.notify ?? ['requester'])
    .map((n) => (n === 'requester' ? requester : n))
    .filter((n, i, all) => !named.has(n) && all.indexOf(n) === i && (n.startsWith('S') || isPerson(n)));
  return extra.length ? mentions(extra, requester) : '';
}

export function mentions(reviewers: string[], requester: string): string {
  const names = reviewers.map((r) =>
    r === 'anyone'
      ? 'anyone in this channel'
      : r === 'requester'
        ? who(requester)
        : r.startsWith('S')
          ? `<!subteam^${r}>`
          : `<@${r}>`,
  );
  return names.join(', ');
}
