/**
 * The last answer Slack gave about where each person belongs, in Postgres (migration 018): shared
 * by every replica and kept across restarts, so that a users.info outage right after a deploy
 * locks out no reviewer Slack answered for before (see directory.ts).
 */
import { z } from 'zod';
import type { Queryable } from '../../db/queryable.js';
import type { Placed, StandingStore } from './directory.js';

const rowSchema = z.object({
  standing: z.enum(['member', 'external']),
  answered_at: z.date(),
});

export function createStandingStore(db: Queryable): StandingStore {
  return {
    read: async (user) => {
      const r = await db.query(
        'SELECT standing, answered_at FROM signoff.slack_standing WHERE user_id = $1',
        [user],
      );
      const row = rowSchema.safeParse(r.rows[0]);
      return row.success ? { standing: row.data.standing, at: row.data.answered_at.getTime() } : undefined;
    },
    write: async (user, standing: Placed, at) => {
      // A slower process's older answer never replaces a newer one.
      await db.query(
        `INSERT INTO signoff.slack_standing (user_id, standing, answered_at) VALUES ($1, $2, $3)
         ON CONFLICT (user_id) DO UPDATE SET standing = EXCLUDED.standing, answered_at = EXCLUDED.answered_at
         WHERE signoff.slack_standing.answered_at <= EXCLUDED.answered_at`,
        [user, standing, new Date(at)],
      );
    },
  };
}
