/** The start modal's submission: checked inside the modal, then started like the slash command. */
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import { isSignoffError } from '../../../../errors.js';
import { safeJson } from '../../decide.js';
import { COULD_NOT_RECORD, type ListenerDeps } from '../../deps.js';
import { startFromSlack, tell } from '../../start-task.js';

const metaSchema = z.object({ channel: z.string().min(1), responseUrl: z.string().url().optional() });

export function createStartSubmission(deps: ListenerDeps) {
  return async ({ ack, view, body, client, logger }: SlackViewMiddlewareArgs & AllMiddlewareArgs) => {
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
    await ack();
    const start = {
      team: body.team?.id ?? view.team_id,
      channel: meta.data.channel,
      user: body.user.id,
      workflow,
      text: taskText,
      responseUrl: meta.data.responseUrl,
    };
    try {
      await startFromSlack(deps, client, { requestKey: `view:${view.id}`, ...start });
    } catch (error) {
      logger.error(error);
      await tell(deps, client, start, COULD_NOT_RECORD);
    }
  };
}
