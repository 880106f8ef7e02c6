/**
 * `/signoff` — alone: a modal to pick a workflow and describe the task; `help`: the workflows;
 * `list`: reviews waiting; `rules`: standing rules (rules-command.ts); `<workflow> <task…>`: start at once. Input is checked before the ack,
 * so a mistake gets an ephemeral sentence and nothing is posted in the channel.
 */
import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { KnownBlock } from '@slack/web-api';
import { isSignoffError } from '../../../../errors.js';
import { awayModal } from '../../../blocks/claim-modals.js';
import { startModal } from '../../../blocks/modals.js';
import { NOT_IN_CHANNEL } from '../../../shared/final-errors.js';
import { readAwayCommand } from '../../away-command.js';
import { COULD_NOT_RECORD, type ListenerDeps, notOpened } from '../../deps.js';
import { botIsOut } from '../../membership.js';
import { listOpenTasks } from '../../overview.js';
import { respondPrivately } from '../../respond.js';
import { RULES_USAGE, rulesAnswer } from '../../rules-command.js';
import { startAfterAck, tell } from '../../start-task.js';

const NO_WORKFLOWS_HERE =
  'No workflow is turned on in this channel, so there is nothing to start here. Ask whoever runs signoff to turn one on for it (`channels:` in the config).';

/** Text as section blocks of at most 3,000 characters each, split between lines. */
function sections(text: string): KnownBlock[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const last = out.at(-1);
    if (last !== undefined && last.length + line.length + 1 <= 3000) out[out.length - 1] = `${last}\n${line}`;
    else out.push(line.slice(0, 3000));
  }
  return out.filter((t) => t.trim()).map((t) => ({ type: 'section', text: { type: 'mrkdwn', text: t } }));
}

export function createSignoffCommand(deps: ListenerDeps) {
  const help = (channel: string) =>
    [
      '*signoff* runs AI-agent workflows here and asks you to review their work.',
      '`/signoff <workflow> <task>` starts one; `/signoff` alone opens a form; `/signoff list` shows the open ones.',
      `Standing rules ("Always allow…" on a card): ${RULES_USAGE}`,
      '`/signoff away [until 2026-12-05]` hands your reviews to someone until that day (the form asks whom); `/signoff away off` ends it.',
      '',
      ...deps.engine.available(channel).map((w) => `• *${w.name}* — ${w.description}`),
    ].join('\n');

  return async ({ command, ack, client }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
    const text = command.text.trim();
    const [typed = '', ...rest] = text.split(/\s+/);
    // Commands and workflow names are lowercase: `/signoff Away off` is `away off`.
    const word = typed.toLowerCase();
    if (!text) {
      const workflows = deps.engine.available(command.channel_id);
      // A form whose only choice is empty is refused by Slack: say why there is nothing to start.
      if (workflows.length === 0) return ack({ response_type: 'ephemeral', text: NO_WORKFLOWS_HERE });
      await ack();
      await client.views
        .open({
          trigger_id: command.trigger_id,
          view: startModal(workflows, command.channel_id, command.response_url),
        })
        .catch(async (err) => {
          deps.logger.warn({ err }, 'Slack did not open the start form');
          const again = 'Send `/signoff` again, or start at once: `/signoff <workflow> <task>`.';
          await respondPrivately(command.response_url, notOpened('the form', again), deps.logger);
        });
      return;
    }
    if (word === 'help') return ack({ response_type: 'ephemeral', text: help(command.channel_id) });
    if (word === 'list' && rest.length === 0) {
      await ack();
      await deps.afterAck.run(async () => {
        // Through the response URL: it answers in a channel the bot has not joined too, where
        // the person is first told how to invite it (as when starting there).
        const [list, out] = await Promise.all([
          listOpenTasks(deps, command.channel_id, command.user_id),
          botIsOut(client, command.channel_id, deps.logger),
        ]);
        // Where Slack takes no answer through the URL (spent, or failing), in the channel, as a start's.
        const where = {
          channel: command.channel_id,
          user: command.user_id,
          responseUrl: command.response_url,
        };
        const text = out ? `${NOT_IN_CHANNEL}\n\n${list.text}` : list.text;
        // With several reviews to decide at once, the list comes with its checkboxes (through the
        // response URL, which takes blocks); else as a sentence, the way every answer goes.
        const withBatch = list.batch.length && { text, blocks: [...sections(text), ...list.batch] };
        if (withBatch && (await respondPrivately(command.response_url, withBatch, deps.logger))) return;
        await tell(deps, client, where, text);
      });
      return;
    }
    if (word === 'away') {
      if (['off', 'back'].includes(rest.join(' ').toLowerCase())) {
        await ack();
        await deps.afterAck.run(async () => {
          const where = {
            channel: command.channel_id,
            user: command.user_id,
            responseUrl: command.response_url,
          };
          await deps.engine.claims
            .away(command.user_id, null)
            .then(({ handedOver }) =>
              tell(
                deps,
                client,
                where,
                `Welcome back: new reviews that name you come to you again${handedOver ? `, and your delegate no longer decides ${handedOver === 1 ? 'a review' : `${handedOver} reviews`} in your place` : ''}.`,
              ),
            )
            .catch(async (err) => {
              deps.logger.error({ err }, 'away off failed');
              await tell(deps, client, where, COULD_NOT_RECORD);
            });
        });
        return;
      }
      await ack();
      // `/signoff away until 2026-12-05 to @dan` opens the form on what it names for certain.
      const away = readAwayCommand(rest.join(' '), new Date());
      await client.views
        .open({
          trigger_id: command.trigger_id,
          view: awayModal(
            away.day,
            { channel: command.channel_id, responseUrl: command.response_url },
            away.delegate,
            away.notes,
          ),
        })
        .catch(async (err) => {
          deps.logger.warn({ err }, 'Slack did not open the away form');
          await respondPrivately(
            command.response_url,
            notOpened('the form', 'Send `/signoff away` again.'),
            deps.logger,
          );
        });
      return;
    }
    if (word === 'rules') {
      await ack();
      await deps.afterAck.run(async () => {
        const answer = await rulesAnswer(deps, rest, { user: command.user_id, team: command.team_id });
        const where = {
          channel: command.channel_id,
          user: command.user_id,
          responseUrl: command.response_url,
        };
        await tell(deps, client, where, answer);
      });
      return;
    }
    let taskText: string;
    try {
      taskText = deps.engine.validate({ workflow: word, text: rest.join(' '), channel: command.channel_id });
    } catch (error) {
      if (!isSignoffError(error)) throw error;
      return ack({ response_type: 'ephemeral', text: `${error.message}\nSee \`/signoff help\`.` });
    }
    await ack();
    await startAfterAck(deps, client, {
      requestKey: `command:${command.trigger_id}`,
      team: command.team_id,
      channel: command.channel_id,
      user: command.user_id,
      workflow: word,
      text: taskText,
      responseUrl: command.response_url,
    });
  };
}
