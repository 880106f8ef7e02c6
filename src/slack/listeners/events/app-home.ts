/** The App Home tab is drawn afresh each time someone opens it. */
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { ListenerDeps } from '../../deps.js';
import { publishHome } from '../../overview.js';

export function createAppHome(deps: ListenerDeps) {
  return async ({ event, client }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs) => {
    if (event.tab !== 'home') return;
    await deps.afterAck.run(async () => {
      try {
        await publishHome(deps, client, event.user);
      } catch (error) {
        // Nothing to tell the person in: the tab keeps what it showed last time.
        deps.logger.warn({ err: error }, 'could not draw the home tab');
      }
    });
  };
}
