/**
 * Many waiting reviews at once, for tests and benchmarks of what people see: `n` Slack tasks in
 * one channel, each waiting on one review, written by two INSERT … SELECT generate_series
 * statements (a graph run per task would take minutes for 10,000). Each review is shaped as the
 * pair workflow's own ("Review the agents' work (cycle 1)"); `created_at` rises with `i`, so
 * review 1 is the oldest.
 */
import type { Queryable } from '../../src/db/queryable.js';
import { reviewRequestSchema } from '../../src/engine/types.js';

export interface SeedOptions {
  /** Names the tasks (`<prefix> <i>`) and their ids; unique per call. */
  prefix: string;
  n: number;
  channel: string;
  requester?: string;
  /** The review's `reviewers` (default: anyone). */
  reviewers?: string[];
  allowExternal?: boolean;
  /** People whose approval the review has counted already (a quorum under way). */
  approvedBy?: string[];
  /** The oldest review's age in seconds (each next one is a second younger; default n + 10). */
  ageSeconds?: number;
}

export const seedRequest = reviewRequestSchema.parse({
  kind: 'review',
  title: "Review the agents' work (cycle 1)",
  body: 'The writer and the critic agree on a draft.',
});

/** The ts of seeded task `i`'s root message (its thread), as the INSERT below makes it. */
export const seededRootTs = (i: number) => `${1_600_000_000 + i}.000100`;

/** Inserts the tasks and their reviews; returns the review ids, oldest first. */
export async function seedWaiting(db: Queryable, o: SeedOptions): Promise<string[]> {
  const age = o.ageSeconds ?? o.n + 10;
  const slug = o.prefix.replace(/\W+/g, '-');
  await db.query(
    `INSERT INTO signoff.tasks (id, workflow, surface, text, requester, origin, status, created_at, updated_at)
     SELECT 'slack-T0TEAM-' || $3 || '-' || $1 || '-' || i, 'pair', 'slack', $2 || ' ' || i, $4,
            jsonb_build_object('team', 'T0TEAM', 'channel', $3::text, 'ts', (1600000000 + i) || '.000100'),
            'waiting', now() - make_interval(secs => $6 - i), now() - make_interval(secs => $6 - i)
     FROM generate_series(1, $5::int) AS i`,
    [slug, o.prefix, o.channel, o.requester ?? 'U0ANN', o.n, age],
  );
  const settings = {
    reviewers: o.reviewers ?? ['anyone'],
    allowSelfApproval: true,
    allowExternal: o.allowExternal ?? false,
    onTimeout: 'remind',
    allowSkip: true,
    dmReviewers: false,
    notify: ['requester'],
    approvals: (o.approvedBy?.length ?? 0) + 1,
    feedback: { minLength: 1, maxLength: 3000 },
    replies: 'ask',
  };
  const approvals = (o.approvedBy ?? []).map((by) => ({
    by,
    at: new Date().toISOString(),
    contentHash: 'h',
  }));
  await db.query(
    `INSERT INTO signoff.reviews (id, task_id, checkpoint, request, settings, approvals, created_at)
     SELECT 'rev-' || $1 || '-' || i, 'slack-T0TEAM-' || $3 || '-' || $1 || '-' || i, 'review', $2, $4, $5,
            now() - make_interval(secs => $7 - i)
     FROM generate_series(1, $6::int) AS i`,
    [slug, seedRequest, o.channel, settings, JSON.stringify(approvals), o.n, age],
  );
  return Array.from({ length: o.n }, (_, k) => `rev-${slug}-${k + 1}`);
}
