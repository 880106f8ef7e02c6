/**
 * Answers `/signoff list` and fills the App Home tab from the engine's tasks and reviews: only
 * what lives in channels the person is in (see audience.ts).
 */
import type { WebClient } from '@slack/web-api';
import { channelOverview, homeView, OVERVIEW_LIMIT } from './blocks/overview.js';
import { memberOf } from './decide.js';
import { COULD_NOT_READ, type ListenerDeps } from './deps.js';

const OPEN = ['working', 'waiting', 'failed'] as const;

export async function listOpenTasks(
  deps: ListenerDeps,
  client: WebClient,
  channel: string,
  user: string,
): Promise<void> {
  let text: string;
  try {
    const tasks = await deps.engine.listTasks({
      surface: 'slack',
      channel,
      statuses: OPEN,
      limit: OVERVIEW_LIMIT,
    });
    const forYou = await deps.audience.visible(
      user,
      await deps.engine.reviewsFor('slack', { id: user, memberOf: memberOf(client, user) }),
    );
    text = channelOverview(tasks, forYou);
  } catch (error) {
    deps.logger.error({ err: error }, 'list failed');
    text = COULD_NOT_READ;
  }
  await client.chat.postEphemeral({ channel, user, text }).catch(() => undefined);
}

export async function publishHome(deps: ListenerDeps, client: WebClient, user: string): Promise<void> {
  const [forYou, mine] = await Promise.all([
    deps.engine
      .reviewsFor('slack', { id: user, memberOf: memberOf(client, user) })
      .then((items) => deps.audience.visible(user, items)),
    deps.engine.listTasks({ surface: 'slack', requester: user, limit: OVERVIEW_LIMIT }).then(async (tasks) =>
      (
        await deps.audience.visible(
          user,
          tasks.map((task) => ({ task })),
        )
      ).map((i) => i.task),
    ),
  ]);
  await client.views.publish({ user_id: user, view: homeView(forYou, mine) });
}
