/**
 * What a button on the Home tab says back. The tab has no channel to say it in, so a small modal
 * opens at once (the click's trigger lives 3 s) and is filled in once the outcome is known,
 * however long that takes. Where Slack takes no modal (an expired trigger, a refused update), the
 * outcome goes to the person's DM with the app instead: it is never left unsaid.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../logger.js';
import { truncate } from '../blocks/text.js';

const modal = (title: string, text: string) => ({
  type: 'modal' as const,
  title: { type: 'plain_text' as const, text: title },
  close: { type: 'plain_text' as const, text: 'Close' },
  blocks: [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text: truncate(text, 3000) } }],
});

/** Opens the notice now, saying `working`; the function returned says the outcome (mrkdwn). */
export function homeNotice(
  deps: { client: WebClient; logger: Logger },
  click: { triggerId: string; user: string },
  title: string,
  working: string,
): (text: string) => Promise<void> {
  const { client, logger } = deps;
  const opened = client.views.open({ trigger_id: click.triggerId, view: modal(title, working) }).then(
    (r) => r.view?.id,
    (err) => void logger.warn({ err }, 'Slack did not open the notice'),
  );
  const direct = async (text: string) => {
    const channel = (await client.conversations.open({ users: click.user })).channel?.id ?? click.user;
    await client.chat.postMessage({ channel, text });
  };
  return async (text) => {
    const id = await opened;
    const shown =
      id &&
      (await client.views.update({ view_id: id, view: modal(title, text) }).then(
        () => true,
        (err) => void logger.warn({ err }, 'Slack did not show the notice'),
      ));
    if (!shown) await direct(text).catch((err) => logger.warn({ err }, 'Slack took no notice by DM either'));
  };
}
