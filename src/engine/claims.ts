/**
 * Claim and hand-off: "I'll take it" on a review (reminders then go to the claimer; with the
 * checkpoint's `exclusiveClaims`, only they decide it while it is claimed), handing it to a named
 * person, releasing it; and `away` (away.ts). Each change locks the task row first, as every
 * writer of a task and its reviews does, and lands with its event and its audit entry.
 */
import type pg from 'pg';
import { inTransaction } from '../db/queryable.js';
import { SignoffError } from '../errors.js';
import type { ClaimControls } from './api.js';
import { askGroups, groupsToAsk, rightRefused } from './authorize.js';
import { createAway } from './away.js';
import { setClaim } from './claim-rows.js';
import type { Delivery } from './delivery.js';
import { getReviewWithTask } from './review-rows.js';
import { audit } from './task-rows.js';
import type { Actor, Clock, GroupDirectory, Review, Surface, Task } from './types.js';

export interface ClaimDeps {
  pool: pg.Pool;
  clock: Clock;
  delivery: Delivery;
  directories: Partial<Record<Surface, GroupDirectory>>;
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
    away: createAway(deps),
  };
}
