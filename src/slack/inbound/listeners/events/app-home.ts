/**
 * The App Home tab is drawn afresh each time someone opens it (home-refresh.ts: one draw at a
 * time per person, made again after a 429). The Messages tab, opened, gets the workflows that
 * person may start there as its suggested prompts (messages-tab.ts).
 */
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { ListenerDeps } from '../../deps.js';
import type { HomeRefresh } from '../../home-refresh.js';
import { showStartPrompts } from '../../messages-tab.js';

export function createAppHome(deps: ListenerDeps, home: HomeRefresh) {
  return async ({ event, client }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs) => {
    if (event.tab === 'messages') {
      const at = { user: event.user, channel: event.channel };
      return deps.afterAck.run(() => showStartPrompts(deps, client, at));
    }
    if (event.tab !== 'home') return;
    await deps.afterAck.run(() => home.refresh({ client, user: event.user }));
  };
}
