/**
 * People and times as a Slack message names them: mentions (a user group as @group, "anyone" in
 * words) and dates shown in each reader's own time zone.
 */
import type { Review } from '../../engine/index.js';

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
  const extra = (review.settings.notify ?? ['requester'])
    .map((n) => (n === 'requester' ? requester : n))
    .filter((n, i, all) => !named.has(n) && all.indexOf(n) === i);
  return extra.length ? mentions(extra, requester) : '';
}

export function mentions(reviewers: string[], requester: string): string {
  const names = reviewers.map((r) =>
    r === 'anyone'
      ? 'anyone in this channel'
      : r === 'requester'
        ? `<@${requester}>`
        : r.startsWith('S')
          ? `<!subteam^${r}>`
          : `<@${r}>`,
  );
  return names.join(', ');
}
