/**
 * Answers `/signoff list` and fills the App Home tab from the engine's tasks and reviews: only
 * what lives in channels the person is in (see audience.ts). What Slack did not answer just now (a
 * channel, a user group, whether the person is from outside) is said, never hidden behind a count.
 */
import type { KnownBlock, WebClient } from '@slack/web-api';
import type { Actor, AllowRule, Task, WaitingPage } from '../../engine/index.js';
import { median } from '../../engine/index.js';
import { batchBlocks } from '../blocks/batch.js';
import {
  channelOverview,
  homeView,
  LIST_REVIEWS,
  OVERVIEW_LIMIT,
  type ThreadLinks,
  type Unchecked,
  type WorkflowPace,
} from '../blocks/overview.js';
import type { Among } from '../shared/audience.js';
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
 * The channels where reviews wait that `user` is in (one question about the person, kept a
 * while: audience.ts), and those Slack left unchecked; the engine then reads, counts and pages
 * only the channels seen. `also`: more channels to check in the same question.
 */
async function placesOf(deps: ListenerDeps, user: string, also: string[] = []): Promise<Among> {
  const places = await deps.engine.reviewPlaces('slack');
  return deps.audience.among(user, [...new Set([...places, ...also])]);
}

/** What could not be checked for `actor`'s list: channels, user groups, their standing. */
function uncheckedOf(actor: Actor, page: WaitingPage, channels: Iterable<string>): Unchecked {
  return {
    channels: new Set(channels).size,
    groups: page.uncheckedGroups,
    standing: actor.external === 'unknown',
  };
}

/**
 * What `/signoff list` answers: what waits for this person, and the channel's open tasks; `batch`:
 * the checkboxes and buttons that decide several of the reviews at once (none for fewer than two).
 */
export async function listOpenTasks(
  deps: ListenerDeps,
  channel: string,
  user: string,
): Promise<{ text: string; batch: KnownBlock[] }> {
  try {
    const [tasks, actor, where] = await Promise.all([
      deps.engine.listTasks({ surface: 'slack', channel, statuses: OPEN, limit: OVERVIEW_LIMIT }),
      slackActor(deps.directory, user),
      placesOf(deps, user, [channel]),
    ]);
    const [forYou, here] = await Promise.all([
      deps.engine.reviewsFor('slack', actor, { places: where.seen, limit: LIST_REVIEWS }),
      // Which of the open tasks shown wait for them, however far down their list those are.
      where.seen.includes(channel)
        ? deps.engine.reviewsFor('slack', actor, {
            places: [channel],
            tasks: tasks.map((t) => t.id),
            limit: OVERVIEW_LIMIT,
          })
        : undefined,
    ]);
    const links = await threadLinks(deps, [...forYou.items.map((i) => i.task), ...tasks]);
    const text = channelOverview(
      tasks,
      forYou,
      new Set(here?.items.map((i) => i.task.id)),
      links,
      uncheckedOf(actor, forYou, where.unchecked),
    );
    return { text, batch: batchBlocks(forYou.items) };
  } catch (error) {
    deps.logger.error({ err: error }, 'list failed');
    return { text: COULD_NOT_READ, batch: [] };
  }
}

/** How long the App Home's decision times look back. */
export const PACE_DAYS = 7;

/**
 * Per workflow, over the channels `user` is in: what waits now and the median time to decision
 * over the last week (a private channel's reviews count only for its members).
 */
async function workflowPace(
  deps: ListenerDeps,
  user: string,
  now: Date,
): Promise<{ pace: WorkflowPace[]; unchecked: string[] }> {
  const since = new Date(now.getTime() - PACE_DAYS * 86_400_000);
  const rows = await deps.engine.reviewTimes('slack', since);
  const where = await deps.audience.among(user, [
    ...new Set(rows.flatMap((r) => (r.place ? [r.place] : []))),
  ]);
  const seen = new Set(where.seen);
  const by = new Map<string, { waiting: number; seconds: number[] }>();
  for (const r of rows) {
    if (!r.place || !seen.has(r.place)) continue;
    const w = by.get(r.workflow) ?? { waiting: 0, seconds: [] };
    w.waiting += r.waiting;
    w.seconds.push(...r.decidedInSeconds);
    by.set(r.workflow, w);
  }
  const pace = [...by].map(([workflow, w]) => ({
    workflow,
    waiting: w.waiting,
    decisions: w.seconds.length,
    medianSeconds: median(w.seconds),
  }));
  return { pace, unchecked: where.unchecked };
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
  const [waiting, mine, pace, rules] = await Promise.all([
    Promise.all([slackActor(deps.directory, user), placesOf(deps, user)]).then(async ([actor, where]) => {
      const page = await deps.engine.reviewsFor('slack', actor, {
        places: where.seen,
        limit: OVERVIEW_LIMIT,
        after,
      });
      return { actor, page, unchecked: where.unchecked };
    }),
    deps.engine
      .listTasks({ surface: 'slack', requester: user, limit: OVERVIEW_LIMIT })
      .then(async (tasks) => {
        const where = await deps.audience.among(user, [
          ...new Set(tasks.flatMap((t) => slackOriginSchema.safeParse(t.origin).data?.channel ?? [])),
        ]);
        const seen = new Set(where.seen);
        const shown = tasks.filter((t) =>
          seen.has(slackOriginSchema.safeParse(t.origin).data?.channel ?? ''),
        );
        return { tasks: shown, unchecked: where.unchecked };
      }),
    workflowPace(deps, user, new Date()),
    rulesSeen(deps, user),
  ]);
  const forYou = waiting.page;
  const links = await threadLinks(deps, [
    ...forYou.items.map((i) => i.task),
    ...mine.tasks.slice(0, OVERVIEW_LIMIT),
  ]);
  const unchecked = uncheckedOf(waiting.actor, forYou, [
    ...waiting.unchecked,
    ...mine.unchecked,
    ...pace.unchecked,
  ]);
  await client.views.publish({
    user_id: user,
    view: homeView(forYou, mine.tasks, pace.pace, links, after, unchecked, {
      rules,
      off: !deps.engine.rules.signers(),
    }),
  });
}

/** The standing rules of the channels `user` is in (a rule of the terminal's is not shown here). */
export async function rulesSeen(deps: ListenerDeps, user: string): Promise<AllowRule[]> {
  const rules = await deps.engine.rules.list(['proposed', 'active']);
  const channels = [...new Set(rules.map((r) => r.scope.channel).filter(Boolean))];
  if (!channels.length) return [];
  const seen = new Set((await deps.audience.among(user, channels)).seen);
  return rules.filter((r) => seen.has(r.scope.channel));
}
