/**
 * Answers `/signoff list` and fills the App Home tab from the engine's tasks and reviews: only
 * what lives in channels the person is in (see audience.ts).
 */
import type { WebClient } from '@slack/web-api';
import type { Actor, Task, WaitingPage } from '../../engine/index.js';
import { median } from '../../engine/index.js';
import {
  channelOverview,
  homeView,
  LIST_REVIEWS,
  OVERVIEW_LIMIT,
  type ThreadLinks,
  type WorkflowPace,
} from '../blocks/overview.js';
import { slackOriginSchema } from '../shared/origin.js';
import { permalinkKey } from '../shared/permalinks.js';
import { slackActor } from './decide.js';
import { COULD_NOT_READ, type ListenerDeps } from './deps.js';

const OPEN = ['working', 'waiting', 'failed'] as const;

/** The links to these tasks' threads (their root messages), by task id, as Slack gives them. */
async function threadLinks(deps: ListenerDeps, tasks: Task[]): Promise<ThreadLinks> {
  const roots = tasks.flatMap((task) => {
    const origin = slackOriginSchema.safeParse(task.origin);
    return origin.success ? [{ id: task.id, channel: origin.data.channel, ts: origin.data.ts }] : [];
  });
  const links = await deps.permalinks.ofMany(roots);
  return new Map(
    roots.flatMap((r) => {
      const link = links.get(permalinkKey(r));
      return link ? [[r.id, link] as const] : [];
    }),
  );
}

/**
 * The channels where reviews wait that `user` is in: the engine then reads, counts and pages
 * only those (one membership look-up a channel, kept for a while, not one a review).
 */
async function placesOf(deps: ListenerDeps, user: string): Promise<string[]> {
  const places = await deps.engine.reviewPlaces('slack');
  const seen = await Promise.all(places.map((p) => deps.audience.seesChannel(user, p)));
  return places.filter((_, i) => seen[i]);
}

/** A page of what waits for `user`, in the channels they are in. */
async function waitingFor(
  deps: ListenerDeps,
  user: string,
  actor: Actor,
  page: { limit: number; after?: string },
): Promise<WaitingPage> {
  return deps.engine.reviewsFor('slack', actor, { places: await placesOf(deps, user), ...page });
}

/** What `/signoff list` answers: what waits for this person, and the channel's open tasks. */
export async function listOpenTasks(deps: ListenerDeps, channel: string, user: string): Promise<string> {
  try {
    const [tasks, actor] = await Promise.all([
      deps.engine.listTasks({ surface: 'slack', channel, statuses: OPEN, limit: OVERVIEW_LIMIT }),
      slackActor(deps.directory, user),
    ]);
    const [forYou, here] = await Promise.all([
      waitingFor(deps, user, actor, { limit: LIST_REVIEWS }),
      // Which of the open tasks shown wait for them, however far down their list those are.
      (await deps.audience.seesChannel(user, channel))
        ? deps.engine.reviewsFor('slack', actor, {
            places: [channel],
            tasks: tasks.map((t) => t.id),
            limit: OVERVIEW_LIMIT,
          })
        : undefined,
    ]);
    const links = await threadLinks(deps, [...forYou.items.map((i) => i.task), ...tasks]);
    return channelOverview(tasks, forYou, new Set(here?.items.map((i) => i.task.id)), links);
  } catch (error) {
    deps.logger.error({ err: error }, 'list failed');
    return COULD_NOT_READ;
  }
}

/** How long the App Home's decision times look back. */
export const PACE_DAYS = 7;

/**
 * Per workflow, over the channels `user` is in: what waits now and the median time to decision
 * over the last week (a private channel's reviews count only for its members).
 */
async function workflowPace(deps: ListenerDeps, user: string, now: Date): Promise<WorkflowPace[]> {
  const since = new Date(now.getTime() - PACE_DAYS * 86_400_000);
  const rows = await deps.engine.reviewTimes('slack', since);
  const seen = await Promise.all(
    rows.map((r) => (r.place ? deps.audience.seesChannel(user, r.place) : false)),
  );
  const by = new Map<string, { waiting: number; seconds: number[] }>();
  rows.forEach((r, i) => {
    if (!seen[i]) return;
    const w = by.get(r.workflow) ?? { waiting: 0, seconds: [] };
    w.waiting += r.waiting;
    w.seconds.push(...r.decidedInSeconds);
    by.set(r.workflow, w);
  });
  return [...by].map(([workflow, w]) => ({
    workflow,
    waiting: w.waiting,
    decisions: w.seconds.length,
    medianSeconds: median(w.seconds),
  }));
}

/**
 * Draws `user`'s Home tab: the page of reviews waiting for them that starts after review `after`
 * (none: the first page), their latest tasks, and how reviews go per workflow.
 */
export async function publishHome(
  deps: ListenerDeps,
  client: WebClient,
  user: string,
  after?: string,
): Promise<void> {
  const [forYou, mine, pace] = await Promise.all([
    slackActor(deps.directory, user).then((actor) =>
      waitingFor(deps, user, actor, { limit: OVERVIEW_LIMIT, after }),
    ),
    deps.engine.listTasks({ surface: 'slack', requester: user, limit: OVERVIEW_LIMIT }).then(async (tasks) =>
      (
        await deps.audience.visible(
          user,
          tasks.map((task) => ({ task })),
        )
      ).map((i) => i.task),
    ),
    workflowPace(deps, user, new Date()),
  ]);
  const links = await threadLinks(deps, [
    ...forYou.items.map((i) => i.task),
    ...mine.slice(0, OVERVIEW_LIMIT),
  ]);
  await client.views.publish({ user_id: user, view: homeView(forYou, mine, pace, links, after) });
}
