/**
 * Answers `/signoff list` and fills the App Home tab from the engine's tasks and reviews: only
 * what lives in channels the person is in (see audience.ts).
 */
import type { WebClient } from '@slack/web-api';
import { median } from '../engine/review-stats.js';
import type { Task } from '../engine/types.js';
import {
  channelOverview,
  homeView,
  OVERVIEW_LIMIT,
  type ThreadLinks,
  type WorkflowPace,
} from './blocks/overview.js';
import { slackActor } from './decide.js';
import { COULD_NOT_READ, type ListenerDeps } from './deps.js';
import { slackOriginSchema } from './origin.js';
import { permalinkKey } from './permalinks.js';

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

/** What `/signoff list` answers: the channel's open tasks and what waits for this person. */
export async function listOpenTasks(deps: ListenerDeps, channel: string, user: string): Promise<string> {
  try {
    const tasks = await deps.engine.listTasks({
      surface: 'slack',
      channel,
      statuses: OPEN,
      limit: OVERVIEW_LIMIT,
    });
    const forYou = await deps.audience.visible(
      user,
      await deps.engine.reviewsFor('slack', await slackActor(deps.directory, user)),
    );
    return channelOverview(tasks, forYou, await threadLinks(deps, tasks));
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

export async function publishHome(deps: ListenerDeps, client: WebClient, user: string): Promise<void> {
  const [forYou, mine, pace] = await Promise.all([
    slackActor(deps.directory, user)
      .then((actor) => deps.engine.reviewsFor('slack', actor))
      .then((items) => deps.audience.visible(user, items)),
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
  const shown = [...forYou.slice(0, OVERVIEW_LIMIT).map((r) => r.task), ...mine.slice(0, OVERVIEW_LIMIT)];
  const links = await threadLinks(deps, shown);
  await client.views.publish({ user_id: user, view: homeView(forYou, mine, pace, links) });
}
