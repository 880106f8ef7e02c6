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
import type { StartInput } from './api.js';

/** Who starts, and where (no channel at the terminal: no channel limit there). */
type StartWho = Pick<StartInput, 'surface' | 'requester' | 'channel'>;

/**
 * The sentence a start would be refused with now: what stands in the way, and what to do. Counts
 * without a lock: alone, a look before anything is posted.
 */
export async function startRefusal(
  db: Queryable,
  limits: StartLimits,
  who: StartWho,
): Promise<string | undefined> {
  const r = await db.query<{ person: number; channel: number }>(
    `SELECT count(*) FILTER (WHERE requester = $2)::int AS person,
            count(*) FILTER (WHERE origin->>'channel' = $3)::int AS channel
     FROM signoff.tasks
     WHERE surface = $1 AND status = 'working' AND (requester = $2 OR origin->>'channel' = $3)`,
    [who.surface, who.requester, who.channel ?? null],
  );
  const counts = r.rows[0] as { person: number; channel: number };
  if (counts.person >= limits.perPerson) {
    return `You already have ${counts.person} tasks the agents are working on, the most one person may have at once. Start this one when one of them is done or waiting for a review, or cancel one you no longer need.`;
  }
  if (who.channel && counts.channel >= limits.perChannel) {
    return `This channel already has ${counts.channel} tasks the agents are working on, the most one channel may have at once. Start this one again in a few minutes, once some of them are done or waiting for a review, or start it in another channel.`;
  }
  return undefined;
}

/**
 * Inside the start's transaction: takes the locks and throws 'too_many_tasks' with the sentence
 * when the person or the channel is at its limit.
 */
export async function assertMayStart(db: Queryable, limits: StartLimits, who: StartWho): Promise<void> {
  const locks = [`person:${who.surface}:${who.requester}`];
  if (who.channel) locks.push(`channel:${who.surface}:${who.channel}`);
  for (const lock of locks) {
    await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`signoff:starts:${lock}`]);
  }
  const why = await startRefusal(db, limits, who);
  if (why) throw new SignoffError('too_many_tasks', why);
}
