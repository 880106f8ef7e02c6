/**
 * How reviews go, per workflow and place (a Slack channel, read from the task's origin): how many
 * wait now, and how long each decision since `since` took. Per place, so that a surface shows a
 * person only the places they may see; the median is the surface's to take over those.
 */
import type { Queryable } from '../db/queryable.js';
import type { Surface } from './types.js';

export interface ReviewTimes {
  workflow: string;
  /** `origin.channel` of the tasks (null where the surface has none, the terminal). */
  place: string | null;
  waiting: number;
  /** Seconds from each review's opening to a person's decision, since `since` (a timer's are not people's pace). */
  decidedInSeconds: number[];
}

export async function reviewTimes(db: Queryable, surface: Surface, since: Date): Promise<ReviewTimes[]> {
  const r = await db.query<ReviewTimes>(
    `SELECT t.workflow, t.origin->>'channel' AS place,
            count(*) FILTER (WHERE r.status = 'pending')::int AS waiting,
            coalesce(array_agg(extract(epoch FROM r.decided_at - r.created_at)::float8)
              FILTER (WHERE r.status = 'decided' AND r.decided_at >= $2 AND r.decision->>'automatic' IS NULL),
              '{}') AS "decidedInSeconds"
     FROM signoff.reviews r JOIN signoff.tasks t ON t.id = r.task_id
     WHERE t.surface = $1 AND (r.status = 'pending' OR (r.status = 'decided' AND r.decided_at >= $2))
     GROUP BY 1, 2 ORDER BY 1, 2`,
    [surface, since],
  );
  return r.rows;
}

/** The median of `values` (undefined for none). */
export function median(values: number[]): number | undefined {
  if (!values.length) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
