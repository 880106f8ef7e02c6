/**
 * The start modal's submission: checked inside the modal, then started like the slash command. A
 * channel the bot is out of is said in the form too, before the ack: the form may be sent long
 * after `/signoff` was typed, when the command's response URL no longer takes answers, and Slack
 * shows no ephemeral from a bot outside the channel, so afterwards nothing would reach the person.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import { isSignoffError } from '../../../../errors.js';
import { safeJson } from '../../decide.js';
import type { ListenerDeps } from '../../deps.js';
import { botIsOut } from '../../membership.js';
import { startAfterAck } from '../../start-task.js';

/** Said under the form's task when the bot is not in the channel; the form stays open, as filled. */
export const FORM_NOT_IN_CHANNEL =
  "I'm not in this channel yet, so I can't post the task there. Add me first: type /invite @signoff in the channel (or open its details, Integrations, Add apps), then send this form again.";

/**
 * How long the ack waits for Slack to say whether the bot is in the channel (the ack is due within
 * 3 s); without an answer by then the start goes ahead, as when Slack does not say.
 */
const MEMBERSHIP_WAIT_MS = 1500;

const metaSchema = z.object({ channel: z.string().min(1), responseUrl: z.string().url().optional() });

export function createStartSubmission(deps: ListenerDeps) {
  return async ({ ack, view, body, client }: SlackViewMiddlewareArgs & AllMiddlewareArgs) => {
    const meta = metaSchema.safeParse(safeJson(view.private_metadata));
    const workflow = view.state.values.workflow?.value?.selected_option?.value ?? '';
    const text = view.state.values.task?.value?.value ?? '';
    if (!meta.success) {
      await ack({
        response_action: 'errors',
        errors: { task: 'This form is out of date; close it and run /signoff again.' },
      });
      return;
    }
    let taskText: string;
    try {
      taskText = deps.engine.validate({ workflow, text, channel: meta.data.channel });
    } catch (error) {
      if (!isSignoffError(error)) throw error;
      const field = error.code === 'empty_task' ? 'task' : 'workflow';
      await ack({ response_action: 'errors', errors: { [field]: error.message } });
      return;
    }
    const out = await Promise.race([
      botIsOut(client, meta.data.channel, deps.logger),
      sleep(MEMBERSHIP_WAIT_MS, false, { ref: false }),
    ]);
    if (out) {
      await ack({ response_action: 'errors', errors: { task: FORM_NOT_IN_CHANNEL } });
      return;
    }
    await ack();
    await startAfterAck(deps, client, {
      requestKey: `view:${view.id}`,
      team: body.team?.id ?? view.team_id,
      channel: meta.data.channel,
      user: body.user.id,
      workflow,
      text: taskText,
      responseUrl: meta.data.responseUrl,
    });
  };
}
