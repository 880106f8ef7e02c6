/**
 * Claim and hand-off: "I'll take it" on a review (reminders then go to the claimer; with the
 * checkpoint's `exclusiveClaims`, only they decide it while it is claimed), handing it to a named
 * person, releasing it, and `away`: someone away until a time has their reviews (claimed by them,
 * or naming them) handed to their delegate, and so has each review opened while they are away
 * (settling.ts asks `withAwayDelegates`). Each change locks the task row first, as every writer of a
 * task and its reviews does, and lands with its event and its audit entry.
 */
import type pg from 'pg';
import { atomically, inTransaction, type Queryable } from '../db/queryable.js';
import { SignoffError } from '../errors.js';
import type { ClaimControls } from './api.js';
import { askGroups, groupsToAsk, rightRefused } from './authorize.js';
import type { Delivery } from './delivery.js';
import { eventKey } from './event-keys.js';
import { recordAll } from './event-store.js';
import { getReviewWithTask } from './review-rows.js';
import { reviewFromRow } from './rows.js';
import { audit } from './task-rows.js';
import type { Actor, Clock, GroupDirectory, Review, ReviewSettings, Surface, Task } from './types.js';

export interface ClaimDeps {
  pool: pg.Pool;
  clock: Clock;
  delivery: Delivery;
  directories: Partial<Record<Surface, GroupDirectory>>;
}

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
  if (!settings.reviewers.length) return settings;
  await db.query(`SELECT pg_advisory_xact_lock_shared(${AWAY_LOCK})`);
  const r = await db.query<{ person: string; delegate: string }>(
    'SELECT person, delegate FROM signoff.away WHERE person = ANY($1) AND until > now() AND delegate IS NOT NULL',
    [settings.reviewers],
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

/** Writes a review's claim (`to`; null releases it) with its event and audit entry; nothing when it is not pending. */
async function setClaim(
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

/**
 * Someone goes away: their delegate decides beside them. Only what they had in hand is the
 * delegate's to have, and only where the delegate stands in for them (a named reviewer); else it
 * is released. An unclaimed review stays open to all. The delegate is told either way.
 */
function handOver(db: Queryable, review: Review, person: string, delegate: string, back: string) {
  const settings = withDelegates(review.settings, { [person]: delegate });
  const named = review.settings.reviewers.includes(person);
  const claim = review.claimedBy === person ? (named ? delegate : null) : review.claimedBy;
  return setClaim(db, review, { by: person, to: delegate, claim, away: back, settings });
}

/**
 * Someone is back: their delegate no longer decides in their place, and what the delegate had in
 * hand only as their stand-in is theirs again (else, on an exclusive checkpoint, nobody could
 * decide it). The card is redrawn; nobody is pinged.
 */
function comeBack(db: Queryable, review: Review, person: string) {
  const { [person]: delegate, ...delegates } = review.settings.delegates ?? {};
  const standIn = review.claimedBy === delegate && !review.settings.reviewers.includes(delegate ?? '');
  const claim = standIn ? person : review.claimedBy;
  return setClaim(db, review, {
    by: person,
    to: claim,
    back: true,
    settings: { ...review.settings, delegates },
  });
}

export function createClaims(deps: ClaimDeps): ClaimControls {
  const { pool } = deps;

  /** The actor with the groups their right on this review hinges on, asked before any lock. */
  async function asked(review: Review, task: Task, actor: Actor): Promise<Actor> {
    return askGroups(deps.directories[task.surface], actor, groupsToAsk(review.settings, task, actor), task);
  }

  /** A change refused is in the audit (who tried what, and why) before it is thrown. */
  async function change(reviewId: string, actor: Actor, toActor: Actor | null): Promise<Review> {
    const to = toActor?.id ?? null;
    try {
      return await changeOnce(reviewId, actor, toActor);
    } catch (error) {
      if (error instanceof SignoffError && error.code !== 'database_unavailable') {
        const action = to === null ? 'release' : to === actor.id ? 'claim' : 'hand_over';
        await audit(pool, {
          reviewId,
          actor: actor.id,
          action: `refused:${action}`,
          detail: { code: error.code, message: error.message, to: to ? [to] : undefined },
        }).catch(() => undefined);
      }
      throw error;
    }
  }

  async function changeOnce(reviewId: string, actor: Actor, toActor: Actor | null): Promise<Review> {
    const to = toActor?.id ?? null;
    const found = await getReviewWithTask(pool, reviewId);
    if (!found) throw new SignoffError('unknown_review', 'That review does not exist here.');
    const who = await asked(found.review, found.task, actor);
    const target = toActor && to !== actor.id ? await asked(found.review, found.task, toActor) : undefined;
    const changed = await inTransaction(pool, async (db) => {
      const locked = await getReviewWithTask(db, reviewId, true);
      if (locked?.review.status !== 'pending')
        throw new SignoffError('review_not_pending', 'This review is closed: there is nothing to claim.');
      const { review, task } = locked;
      const mine = review.claimedBy === actor.id;
      // Exclusive: only the claimer hands it over or releases it (the operator too; and `away`).
      if (review.settings.exclusiveClaims && review.claimedBy && !mine && !who.operator)
        throw new SignoffError(
          'not_allowed',
          `<@${review.claimedBy}> has it, and only they can hand it over or release it while it is theirs.`,
        );
      // Who takes it must be able to approve it (a requester who may not approve their own work
      // takes nobody's turn); anyone who may decide it hands it over or releases it.
      const denied = mine
        ? undefined
        : rightRefused(review.settings, task, who, to === actor.id ? 'approve' : 'reject');
      if (denied) throw new SignoffError(denied.code, denied.message);
      if (target) {
        const theirs = rightRefused(review.settings, task, target, 'approve');
        if (theirs?.code === 'directory_unavailable')
          throw new SignoffError(
            theirs.code,
            `Slack did not say just now whether <@${to}> may decide this review; try again in a minute.`,
          );
        if (theirs)
          throw new SignoffError(
            'not_allowed',
            `<@${to}> may not decide this review, so it cannot be handed to them.`,
          );
      }
      if (review.claimedBy === to)
        throw new SignoffError('not_allowed', to ? `<@${to}> has it already.` : 'Nobody has claimed it.');
      return setClaim(db, review, { by: actor.id, to });
    });
    if (!changed)
      throw new SignoffError('review_not_pending', 'This review is closed: there is nothing to claim.');
    void deps.delivery.kick({ id: changed.taskId, surface: found.task.surface });
    return changed;
  }

  return {
    claim: (reviewId, actor, to = actor) => change(reviewId, actor, to),
    release: (reviewId, actor) => change(reviewId, actor, null),

    async away(person, until, delegate) {
      if (until && until.getTime() <= deps.clock.now().getTime())
        throw new SignoffError('bad_arguments', 'Pick a day after today for when you are back.');
      if (delegate === person) throw new SignoffError('bad_arguments', 'Hand your reviews to someone else.');
      await setAway(pool, person, until, delegate);
      if (until && !delegate) return { handedOver: 0 };
      // Going away: their reviews (claimed by them, or naming them). Back: those their delegate
      // decides in their place.
      const r = await pool.query<{ id: string }>(
        until
          ? `SELECT id FROM signoff.reviews WHERE status = 'pending'
               AND (claimed_by = $1 OR settings->'reviewers' ? $1) ORDER BY id`
          : `SELECT id FROM signoff.reviews WHERE status = 'pending' AND settings->'delegates' ? $1 ORDER BY id`,
        [person],
      );
      let handedOver = 0;
      for (const { id } of r.rows) {
        const changed = await inTransaction(pool, async (db) => {
          if (!(await getReviewWithTask(db, id, true))) return undefined;
          // Read again now that the task is locked: the first read is as of before the lock.
          const review = (await getReviewWithTask(db, id))?.review;
          if (review?.status !== 'pending') return undefined;
          // Under the shared lock, the away row as it is now: a later change of it (back, or
          // away again to someone else) waits for this one, or this one sees it and does nothing.
          await db.query(`SELECT pg_advisory_xact_lock_shared(${AWAY_LOCK})`);
          const now = await db.query<{ delegate: string | null }>(
            'SELECT delegate FROM signoff.away WHERE person = $1 AND until > now()',
            [person],
          );
          if (!until) return now.rows[0] ? undefined : comeBack(db, review, person);
          if (now.rows[0]?.delegate !== delegate) return undefined;
          return handOver(db, review, person, delegate as string, until.toISOString().slice(0, 10));
        });
        if (changed) {
          handedOver += 1;
          const task = await getReviewWithTask(pool, id);
          if (task) void deps.delivery.kick(task.task);
        }
      }
      return { handedOver };
    },
  };
}
