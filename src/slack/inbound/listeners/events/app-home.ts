/**
 * The App Home tab is drawn afresh each time someone opens it (home-refresh.ts: one draw at a
 * time per person, made again after a 429).
 */
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { ListenerDeps } from '../../deps.js';
import type { HomeRefresh } from '../../home-refresh.js';

export function createAppHome(deps: ListenerDeps, home: HomeRefresh) {
  return async ({ event, client }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs) => {
    if (event.tab !== 'home') return;
    await deps.afterAck.run(() => home.refresh({ client, user: event.user }));
  };
}
