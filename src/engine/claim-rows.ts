/**
 * A review's claim written (who has it now, and with it any change of its settings) with its
 * `review_claimed` event and its audit entry, in one transaction: claims.ts and away.ts write
 * through it.
 */
import { atomically, type Queryable } from '../db/queryable.js';
import { eventKey } from './event-keys.js';
import { recordAll } from './event-store.js';
import { reviewFromRow } from './rows.js';
import { audit } from './task-rows.js';
import type { Review, ReviewSettings } from './types.js';

/** Writes a review's claim (`to`; null releases it) with its event and audit entry; nothing when it is not pending. */
export async function setClaim(
  db: Queryable,
  review: Review,
  change: {
    by: string;
    to: string | null;
    away?: string;
    back?: true;
    settings?: ReviewSettings;
    claim?: string | null;
  },
): Promise<Review | undefined> {
  // `claim`: who has it now, where that is not `to` (someone away: `to` is who decides for them).
  const claim = change.claim === undefined ? change.to : change.claim;
  return atomically(db, async (db) => {
    const r = await db.query(
      `UPDATE signoff.reviews SET claimed_by = $2,
         claimed_at = CASE WHEN $2::text IS NULL THEN NULL WHEN claimed_by IS NOT DISTINCT FROM $2 THEN claimed_at ELSE now() END,
         settings = coalesce($3, settings)
       WHERE id = $1 AND status = 'pending' RETURNING *`,
      [review.id, claim, change.settings ?? null],
    );
    if (!r.rows[0]) return undefined;
    const changed = reviewFromRow(r.rows[0]);
    const n = (
      await db.query<{ n: number }>('SELECT count(*)::int AS n FROM signoff.audit WHERE review_id = $1', [
        review.id,
      ])
    ).rows[0]?.n;
    await recordAll(db, review.taskId, [
      {
        key: eventKey.claimed(review.id, n ?? 0),
        event: {
          type: 'review_claimed',
          review: changed,
          by: change.by,
          to: change.to,
          ...(change.away && { away: change.away }),
          ...(change.back && { back: true }),
        },
      },
    ]);
    await audit(db, {
      taskId: review.taskId,
      reviewId: review.id,
      actor: change.by,
      action: change.back
        ? 'back'
        : change.away
          ? 'away'
          : change.to === null
            ? 'release'
            : change.to === change.by
              ? 'claim'
              : 'hand_over',
      detail: { to: change.to ? [change.to] : undefined, reason: change.away && `away until ${change.away}` },
    });
    return changed;
  });
}
