/**
 * What signoff posted, by key: recorded once Slack answers, and carried in the message's own
 * metadata so that an attempt after one that died between posting and recording finds it.
 */
import type { Queryable } from '../../db/queryable.js';
import type { ReviewRequest } from '../../engine/index.js';
import { contentHash } from '../../engine/index.js';
import { reviewTextMessages } from '../blocks/review-card.js';

/** Message metadata that names the post's key. */
export const POST_METADATA_TYPE = 'signoff_post';

export const postMetadata = (key: string) => ({ event_type: POST_METADATA_TYPE, event_payload: { key } });

type MessageWithMetadata = { ts?: string; metadata?: { event_type?: string; event_payload?: unknown } };

/** The message among `messages` (read with their metadata) that was posted as `key`. */
export const postedAs = (messages: MessageWithMetadata[] | undefined, key: string): string | undefined =>
  messages?.find(
    (m) =>
      m.metadata?.event_type === POST_METADATA_TYPE &&
      (m.metadata.event_payload as { key?: string } | undefined)?.key === key,
  )?.ts;

/**
 * Recorded (with the thread's root) when a review's card went out plain, without its content:
 * every redraw of that card stays plain.
 */
/** The key of a review's card: each of its posts' keys begins with it. */
export const cardKey = (reviewId: string) => `card:${reviewId}`;
export const plainCardKey = (reviewId: string) => `plain-card:${reviewId}`;

/**
 * Recorded when a redraw of a review's card for content `hash` (an edit changed it) failed for
 * good: the card went plain for that content, and every redraw of it stays plain.
 */
export const plainContentKey = (reviewId: string, hash: string) => `plain-card:${reviewId}:${hash}`;

/**
 * The thread posts that carry a long review's content next to its card, in order: keyed by the
 * content's hash, so that content an edit changed is posted again and never mistaken for the old.
 */
export const reviewTextKey = (reviewId: string, hash: string, part: number) =>
  `${cardKey(reviewId)}:text:${hash}:${part}`;
/** As they were keyed before an edit could change a card's content: the content as first asked. */
const firstTextKey = (reviewId: string) => `${cardKey(reviewId)}:text:0`;

/** How a card can show the content it is drawn with (see cardText). */
export interface CardText {
  /** It cannot show what would be approved: nothing on it, or asked from it, may approve. */
  plain: boolean;
  /** Long content whose full text is not all in the thread (plain until every part is posted). */
  missing: boolean;
  /** The full text was posted after the card (an edit changed the content): below it, not above. */
  below: boolean;
}

/** Whether Slack message ts `a` is later than `b` (seconds and microseconds, compared as numbers). */
export const later = (a: string, b: string) => {
  const [as = 0, au = 0] = a.split('.').map(Number);
  const [bs = 0, bu = 0] = b.split('.').map(Number);
  return as !== bs ? as > bs : au > bu;
};

/**
 * How a review's card can show `request` (the review's content now, or as decided). Plain when it
 * went out plain (for this content, or at all), or when the content is longer than a card and its
 * full text is not all in the thread: never posted (a card posted before signoff did that), posted
 * for other content (before an edit changed it), or only in part (a later part failed to post).
 * No redraw then offers Approve on content nobody can see from the card, and no click approves it.
 */
export async function cardText(db: Queryable, reviewId: string, request: ReviewRequest): Promise<CardText> {
  const hash = contentHash(request);
  // Every part, not the first alone: a card says the whole text is in its N messages.
  const parts = reviewTextMessages({ request }).map((_, i) => reviewTextKey(reviewId, hash, i));
  const plain = [plainCardKey(reviewId), plainContentKey(reviewId, hash)];
  const r = await db.query<{ key: string; ts: string }>(
    'SELECT key, ts FROM signoff.slack_posts WHERE key = ANY($1)',
    [[...plain, ...parts, firstTextKey(reviewId), cardKey(reviewId)]],
  );
  const ts = new Map(r.rows.map((row) => [row.key, row.ts]));
  if (plain.some((key) => ts.has(key))) return { plain: true, missing: false, below: false };
  if (parts.length === 0) return { plain: false, missing: false, below: false };
  // Posts keyed the old way were all made before the card, which went out only after the last of
  // them: the first stands for all.
  const posted = parts.every((key) => ts.has(key))
    ? ts.get(parts[0] as string)
    : request.edit
      ? undefined
      : ts.get(firstTextKey(reviewId));
  if (!posted) return { plain: true, missing: true, below: false };
  const card = ts.get(cardKey(reviewId));
  return { plain: false, missing: false, below: card !== undefined && later(posted, card) };
}

/** The message a key was posted as, if it was. */
export async function findPost(
  db: Queryable,
  key: string,
): Promise<{ channel: string; ts: string } | undefined> {
  const r = await db.query<{ channel: string; ts: string }>(
    'SELECT channel, ts FROM signoff.slack_posts WHERE key = $1',
    [key],
  );
  return r.rows[0];
}

export async function recordPost(db: Queryable, key: string, channel: string, ts: string): Promise<void> {
  await db.query(
    'INSERT INTO signoff.slack_posts (key, channel, ts) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING',
    [key, channel, ts],
  );
}
