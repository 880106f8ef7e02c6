/**
 * `away`: someone away until a time has their reviews (claimed by them, or naming them) handed to
 * their delegate, who decides beside them, and so has each review opened while they are away
 * (settling.ts and usage.ts ask `withAwayDelegates`); back, their delegate no longer decides in
 * their place. Each change locks the task row first, as every writer of a task and its reviews
 * does, and lands with its event and its audit entry (claim-rows.ts).
 */
import type pg from 'pg';
import { isPersonId } from '../config/checkpoint.js';
import { inTransaction, type Queryable } from '../db/queryable.js';
import { SignoffError } from '../errors.js';
import type { ClaimControls } from './api.js';
import { setClaim } from './claim-rows.js';
import type { Delivery } from './delivery.js';
import { getReviewWithTask } from './review-rows.js';
import { getTask } from './task-rows.js';
import type { Clock, Review, ReviewSettings } from './types.js';

/**
 * Opening a review (shared) and going away or coming back (exclusive) serialize on this
 * transaction-scoped lock: a review opened while someone goes away is either seen by their
 * hand-over or opened with their delegate, never neither; and one opened as they come back keeps
 * no delegate. Only the away row is written under the exclusive lock, so that it waits for no
 * other lock.
 */
const AWAY_LOCK = "hashtextextended('signoff:away', 0)";

/**
 * A review's settings as it opens, with each away reviewer's delegate: called in the transaction
 * that opens the review.
 */
export async function withAwayDelegates<S extends Pick<ReviewSettings, 'reviewers' | 'delegates'>>(
  db: Queryable,
  settings: S,
): Promise<S> {
  // Only a person named by id can be away (the config file's reviewers are ids, groups,
  // `requester` or `anyone`): a review that names none costs no lock and no read.
  const people = settings.reviewers.filter(isPersonId);
  if (!people.length) return settings;
  await db.query(`SELECT pg_advisory_xact_lock_shared(${AWAY_LOCK})`);
  const r = await db.query<{ person: string; delegate: string }>(
    'SELECT person, delegate FROM signoff.away WHERE person = ANY($1) AND until > now() AND delegate IS NOT NULL',
    [people],
  );
  return withDelegates(settings, Object.fromEntries(r.rows.map((row) => [row.person, row.delegate])));
}

/**
 * A review's settings with each away reviewer's delegate, who decides in their place (authorize.ts):
 * not a reviewer of their own (nothing in the config vouches for them: their standing is checked),
 * and one person with the one they stand in for towards a quorum (sign-off-rules.ts).
 */
function withDelegates<S extends Pick<ReviewSettings, 'reviewers' | 'delegates'>>(
  settings: S,
  delegates: Record<string, string>,
): S {
  const away = settings.reviewers.filter((r) => delegates[r]);
  if (!away.length) return settings;
  return {
    ...settings,
    delegates: { ...settings.delegates, ...Object.fromEntries(away.map((r) => [r, delegates[r] as string])) },
  };
}

/** Writes (or, with `until` null, deletes) a person's away row under the exclusive lock. */
function setAway(pool: pg.Pool, person: string, until: Date | null, delegate?: string): Promise<void> {
  return inTransaction(pool, async (db) => {
    await db.query(`SELECT pg_advisory_xact_lock(${AWAY_LOCK})`);
    if (until === null) await db.query('DELETE FROM signoff.away WHERE person = $1', [person]);
    else
      await db.query(
        `INSERT INTO signoff.away (person, until, delegate) VALUES ($1, $2, $3)
         ON CONFLICT (person) DO UPDATE SET until = $2, delegate = $3, set_at = now()`,
        [person, until, delegate ?? null],
      );
  });
}

/**
 * Whether `who` may decide the review by its settings alone: named, `anyone`, or the requester
 * where that counts; a group may hold anyone, so a review with one is taken to allow them.
 */
const mayDecide = (settings: ReviewSettings, who: string) =>
  settings.reviewers.some((r) => r === who || r === 'anyone' || r === 'requester' || r.startsWith('S'));

/**
 * Someone goes away: their delegate decides beside them. What they had in hand (claimed by them,
 * or by an earlier delegate of theirs standing in for them) is the new delegate's, where the
 * delegate stands in for them (a named reviewer); else it is released. An unclaimed review stays
 * open to all. Nothing where the review no longer names them or is theirs.
 */
function handOver(db: Queryable, review: Review, person: string, delegate: string, back: string) {
  const earlier = review.settings.delegates?.[person];
  const theirs =
    review.claimedBy === person ||
    (earlier !== undefined && review.claimedBy === earlier && !mayDecide(review.settings, earlier));
  const named = review.settings.reviewers.includes(person);
  if (!named && !theirs) return undefined;
  const settings = withDelegates(review.settings, { [person]: delegate });
  const claim = theirs ? (named ? delegate : null) : review.claimedBy;
  return setClaim(db, review, { by: person, to: delegate, claim, away: back, settings });
}

/**
 * Someone is back: their delegate no longer decides in their place, and what the delegate had in
 * hand only as their stand-in (nobody else's, and no right of their own) is theirs again: else,
 * on an exclusive checkpoint, nobody could decide it. Nothing where no delegate stands in for them.
 */
function comeBack(db: Queryable, review: Review, person: string) {
  const { [person]: delegate, ...delegates } = review.settings.delegates ?? {};
  if (!delegate) return undefined;
  const standIn =
    review.claimedBy === delegate &&
    !mayDecide(review.settings, delegate) &&
    !Object.values(delegates).includes(delegate);
  const claim = standIn ? person : review.claimedBy;
  return setClaim(db, review, {
    by: person,
    to: claim,
    back: true,
    settings: { ...review.settings, delegates },
  });
}

export function createAway(deps: { pool: pg.Pool; clock: Clock; delivery: Delivery }): ClaimControls['away'] {
  const { pool } = deps;
  return async (person, until, delegate) => {
    if (until && until.getTime() <= deps.clock.now().getTime())
      throw new SignoffError('bad_arguments', 'Pick a day after today for when you are back.');
    if (delegate === person) throw new SignoffError('bad_arguments', 'Hand your reviews to someone else.');
    await setAway(pool, person, until, delegate);
    if (until && !delegate) return { handedOver: 0 };
    // Going away: their reviews (claimed by them, or naming them). Back: those their delegate
    // decides in their place.
    const r = await pool.query<{ id: string; task_id: string }>(
      until
        ? `SELECT id, task_id FROM signoff.reviews WHERE status = 'pending'
             AND (claimed_by = $1 OR settings->'reviewers' ? $1) ORDER BY id`
        : `SELECT id, task_id FROM signoff.reviews WHERE status = 'pending' AND settings->'delegates' ? $1 ORDER BY id`,
      [person],
    );
    let handedOver = 0;
    for (const row of r.rows) {
      const changed = await inTransaction(pool, async (db) => {
        // The task row first, as every writer of a task and its reviews; then the review as it is
        // now that the task is locked.
        const task = await getTask(db, row.task_id, true);
        const review = task && (await getReviewWithTask(db, row.id))?.review;
        if (review?.status !== 'pending') return undefined;
        // Under the shared lock, the away row as it is now: a later change of it (back, or
        // away again to someone else) waits for this one, or this one sees it and does nothing.
        await db.query(`SELECT pg_advisory_xact_lock_shared(${AWAY_LOCK})`);
        const now = await db.query<{ delegate: string | null }>(
          'SELECT delegate FROM signoff.away WHERE person = $1 AND until > now()',
          [person],
        );
        const stillAway = now.rows[0];
        const done = until
          ? stillAway?.delegate === delegate &&
            (await handOver(db, review, person, delegate as string, until.toISOString().slice(0, 10)))
          : !stillAway && (await comeBack(db, review, person));
        return done ? task : undefined;
      });
      if (changed) {
        handedOver += 1;
        void deps.delivery.kick(changed);
      }
    }
    return { handedOver };
  };
}
