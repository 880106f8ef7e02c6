/**
 * Start limits: how many tasks the agents may have in hand at once (status `working`: running,
 * or queued to run) for one person and in one channel (the config file's `starts`). A task that
 * waits for a review, has finished or failed holds no worker and does not count.
 *
 * Checked inside the start's transaction under two transaction-scoped advisory locks, the
 * person's and then the channel's (always in that order, so two starts never wait on each other
 * in a circle): two starts at once by one person are counted one after the other, not both
 * against the same count.
 */

import type { StartLimits } from '../config/workflows.js';
import type { Queryable } from '../db/queryable.js';
import { SignoffError } from '../errors.js';
import type { Surface } from './types.js';

export interface StartWho {
  surface: Surface;
  requester: string;
  /** The channel the task starts in (none at the terminal: no channel limit there). */
  channel?: string;
}

/** The sentence a refused start gets: what stands in the way, and what to do. */
export function startsRefused(
  limits: StartLimits,
  counts: { person: number; channel: number },
  who: StartWho,
) {
  if (counts.person >= limits.perPerson) {
    return `You already have ${counts.person} tasks the agents are working on, the most one person may have at once. Start this one when one of them is done or waiting for a review, or cancel one you no longer need.`;
  }
  if (who.channel && counts.channel >= limits.perChannel) {
    return `This channel already has ${counts.channel} tasks the agents are working on, the most one channel may have at once. Start this one again in a few minutes, once some of them are done or waiting for a review, or start it in another channel.`;
  }
  return undefined;
}

/** The person's and the channel's working tasks now (no lock: a look before anything is posted). */
async function countWorking(db: Queryable, who: StartWho): Promise<{ person: number; channel: number }> {
  const r = await db.query<{ person: number; channel: number }>(
    `SELECT count(*) FILTER (WHERE requester = $2)::int AS person,
            count(*) FILTER (WHERE origin->>'channel' = $3)::int AS channel
     FROM signoff.tasks
     WHERE surface = $1 AND status = 'working' AND (requester = $2 OR origin->>'channel' = $3)`,
    [who.surface, who.requester, who.channel ?? null],
  );
  return r.rows[0] as { person: number; channel: number };
}

/** Whether a start would be refused now, and why (for a surface to say so before it posts anything). */
export async function startRefusal(
  db: Queryable,
  limits: StartLimits,
  who: StartWho,
): Promise<string | undefined> {
  return startsRefused(limits, await countWorking(db, who), who);
}

/**
 * Inside the start's transaction: takes the locks and throws 'too_many_tasks' with the sentence
 * when the person or the channel is at its limit.
 */
export async function assertMayStart(db: Queryable, limits: StartLimits, who: StartWho): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
    `signoff:starts:person:${who.surface}:${who.requester}`,
  ]);
  if (who.channel) {
    await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `signoff:starts:channel:${who.surface}:${who.channel}`,
    ]);
  }
  const why = await startRefusal(db, limits, who);
  if (why) throw new SignoffError('too_many_tasks', why);
}
