/**
 * What waits on one person: the pending reviews they may decide, in the places they may see, a
 * page at a time, oldest first. Filtered, counted and paged by one statement, so that the App
 * Home and `/signoff list` read twenty rows and two counts however many reviews wait in the
 * workspace (they used to read the workspace's oldest hundred and filter them in the process:
 * past a hundred, newer reviews were nobody's).
 *
 * The statement's rule is authorize.ts's `refusal(settings, task, actor, 'revise')` written in
 * SQL (a test holds the two equal over every combination): listed (`anyone`, the person, a group
 * they are in, `requester` on their own task), people from outside only where the checkpoint
 * allows them, and not a review whose quorum already has their approval.
 */
import type { Queryable } from '../db/queryable.js';
import { askGroups } from './authorize.js';
import { type ReviewTaskRow, reviewWithTask } from './review-rows.js';
import type { Actor, GroupDirectory, Review, Surface, Task } from './types.js';

export interface WaitingQuery {
  /** Only tasks in these places (`origin.channel`: the channels the person is in); absent: anywhere. */
  places?: readonly string[];
  /** Only these tasks. */
  tasks?: readonly string[];
  /** Reviews on the page (default 20). */
  limit?: number;
  /** The id of the last review of the page before: this page starts after it (oldest first). */
  after?: string;
}

export interface WaitingPage {
  items: { review: Review; task: Task }[];
  /** How many wait for this person in all (in those places), this page's included. */
  total: number;
  /** How many come after this page. */
  more: number;
  /**
   * User groups named on reviews in scope that the surface could not say the person is in just
   * now: reviews open to them through one of these are in neither the page nor the counts, so a
   * surface says the list may be incomplete instead of showing a confident count.
   */
  uncheckedGroups: string[];
}

/**
 * The pending reviews of the surface's tasks in the query's places and tasks, and the person's
 * standing ($1 surface, $2 places, $3 tasks, $4 the person's id, $5 external): someone from
 * outside only where the checkpoint lets them (allowExternal, or their id among the reviewers).
 */
const IN_SCOPE = `r.status = 'pending' AND t.surface = $1
  AND ($2::text[] IS NULL OR t.origin->>'channel' = ANY($2))
  AND ($3::text[] IS NULL OR r.task_id = ANY($3))
  AND (NOT $5::boolean OR coalesce((r.settings->>'allowExternal')::boolean, false)
       OR r.settings->'reviewers' ? $4::text)`;

/** Listed without a group: `anyone`, by their id, or as the requester of their own task. */
const LISTED_AS_THEMSELVES = `(r.settings->'reviewers' ?| ARRAY['anyone', $4::text]
  OR (r.settings->'reviewers' ? 'requester' AND t.requester = $4))`;

/** A page of the reviews `actor` may decide (see the file's comment). */
export async function waitingFor(
  db: Queryable,
  directory: GroupDirectory | undefined,
  surface: Surface,
  actor: Actor,
  q: WaitingQuery = {},
): Promise<WaitingPage> {
  const scope = [surface, q.places ?? null, q.tasks ?? null, actor.id, Boolean(actor.external)];
  // The user groups a right could come through: those named where nothing else lists the person
  // (authorize.ts's `groupsToAsk`, over every review in scope at once). A group the surface could
  // not answer for counts as not theirs, as it does at a click; the page says which, so that
  // nobody takes its count for all there is.
  let named: string[] = [];
  let who = actor;
  if (directory) {
    const r = await db.query<{ g: string }>(
      `SELECT DISTINCT g FROM signoff.reviews r JOIN signoff.tasks t ON t.id = r.task_id,
         jsonb_array_elements_text(r.settings->'reviewers') AS g
       WHERE ${IN_SCOPE} AND g LIKE 'S%' AND NOT ${LISTED_AS_THEMSELVES}`,
      scope,
    );
    named = r.rows.map((row) => row.g);
    const known = new Set([...(actor.groups ?? []), ...(actor.unknownGroups ?? [])]);
    who = await askGroups(
      directory,
      actor,
      named.filter((g) => !known.has(g)),
    );
  }
  const unknown = new Set(who.unknownGroups ?? []);
  const r = await db.query<{ total: number; more: number; items: ReviewTaskRow[] }>(
    `WITH mine AS MATERIALIZED (
       SELECT r.id, r.created_at FROM signoff.reviews r JOIN signoff.tasks t ON t.id = r.task_id
       WHERE ${IN_SCOPE}
         AND (${LISTED_AS_THEMSELVES} OR r.settings->'reviewers' ?| $6::text[])
         -- An approval already given (theirs, or one in their place): the rest is others' to give.
         AND NOT r.approvals @> jsonb_build_array(jsonb_build_object('by', $4::text))
         AND NOT r.approvals @> jsonb_build_array(jsonb_build_object('for', $4::text))),
     start AS (SELECT created_at, id FROM signoff.reviews WHERE id = $7),
     -- After the previous page's last review (decided since or not); from the first when it is gone.
     rest AS (SELECT * FROM mine m
              WHERE NOT EXISTS (SELECT 1 FROM start) OR (m.created_at, m.id) > (SELECT created_at, id FROM start)),
     page AS (SELECT * FROM rest ORDER BY created_at, id LIMIT $8)
     SELECT (SELECT count(*) FROM mine)::int AS total,
            ((SELECT count(*) FROM rest) - (SELECT count(*) FROM page))::int AS more,
            coalesce((SELECT jsonb_agg(jsonb_build_object('r', to_jsonb(r), 't', to_jsonb(t))
                                       ORDER BY r.created_at, r.id)
                      FROM page p JOIN signoff.reviews r ON r.id = p.id JOIN signoff.tasks t ON t.id = r.task_id),
                     '[]') AS items`,
    [...scope, who.groups ?? [], q.after ?? null, q.limit ?? 20],
  );
  const { total, more, items } = r.rows[0] as { total: number; more: number; items: ReviewTaskRow[] };
  return {
    items: items.map(reviewWithTask),
    total,
    more,
    uncheckedGroups: named.filter((g) => unknown.has(g)),
  };
}

/** The places (`origin.channel`) where reviews of the surface's tasks wait. */
export async function waitingPlaces(db: Queryable, surface: Surface): Promise<string[]> {
  const r = await db.query<{ place: string }>(
    `SELECT DISTINCT t.origin->>'channel' AS place FROM signoff.reviews r JOIN signoff.tasks t ON t.id = r.task_id
     WHERE r.status = 'pending' AND t.surface = $1 AND t.origin ? 'channel'`,
    [surface],
  );
  return r.rows.map((row) => row.place);
}
