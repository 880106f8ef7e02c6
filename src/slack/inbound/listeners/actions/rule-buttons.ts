/**
 * The buttons on a standing rule's message: Approve rule and Refuse (while proposed), Revoke.
 * The button carries only the rule's number; the engine checks who clicked (the config file's
 * `alwaysAllow`, the proposer for their own revoke). What happened is said to the person; the
 * message itself is redrawn from the rule's event.
 */
import { z } from 'zod';
import { type AllowRule, scopeInWords } from '../../../../engine/index.js';
import { isSignoffError } from '../../../../errors.js';
import { safeJson, slackActor } from '../../decide.js';
import { type ButtonArgs, COULD_NOT_RECORD, type ListenerDeps } from '../../deps.js';
import { homeNotice } from '../../home-notice.js';
import type { HomeRefresh } from '../../home-refresh.js';
import { tellClicker } from '../../tell-clicker.js';

const ruleValueSchema = z.object({ rule: z.number().int().min(1) });

/** What the person who moved a rule hears. */
export function ruleOutcome(rule: AllowRule, needed: number | undefined): string {
  const covers = scopeInWords(rule.scope, (c) => `<#${c}>`);
  switch (rule.status) {
    case 'proposed':
      return `Your approval of rule #${rule.id} is recorded (${rule.approvals.length}${needed ? ` of ${needed}` : ''}). It applies once enough people approve it.`;
    case 'active':
      return `Rule #${rule.id} is signed off: from now on it approves ${covers}.`;
    case 'refused':
      return `Rule #${rule.id} is refused: it approves nothing.`;
    case 'revoked':
      return `Rule #${rule.id} is revoked: it approves nothing more.`;
  }
}

export function createRuleButton(
  deps: ListenerDeps,
  action: 'approve' | 'reject' | 'revoke',
  home?: HomeRefresh,
) {
  return async ({ ack, body, action: button, client }: ButtonArgs) => {
    await ack();
    // From the Home tab: the tab is drawn again, and the sentence comes in a notice (home-notice.ts).
    const fromHome = body.view?.type === 'home';
    const inThread = tellClicker(
      { client, logger: deps.logger },
      {
        channel: body.channel?.id ?? body.container?.channel_id,
        user: body.user.id,
        threadTs: body.message?.thread_ts,
        responseUrl: body.response_url,
      },
    );
    const notice =
      fromHome &&
      homeNotice(
        { client, logger: deps.logger },
        { triggerId: body.trigger_id, user: body.user.id },
        'Standing rules',
        'Working on it…',
      );
    const tell = async (text: string) => {
      if (!notice) return inThread(text);
      await Promise.all([notice(text), home?.refresh({ client, user: body.user.id })]);
    };
    await deps.afterAck.run(async () => {
      const value = ruleValueSchema.safeParse(safeJson(button.value ?? ''));
      if (!value.success)
        return void (await tell('That button does not belong to a rule here; nothing was changed.'));
      try {
        const signers = deps.engine.rules.signers();
        const actor = await slackActor(
          deps.directory,
          body.user.id,
          body.user.team_id,
          signers && [signers.reviewers],
        );
        const rule =
          action === 'revoke'
            ? await deps.engine.rules.revoke(value.data.rule, actor)
            : await deps.engine.rules.decide(value.data.rule, actor, action);
        await tell(ruleOutcome(rule, signers?.approvals));
      } catch (error) {
        if (isSignoffError(error) && error.code !== 'database_unavailable')
          return void (await tell(error.message));
        deps.logger.error({ err: error }, 'a rule button failed');
        await tell(COULD_NOT_RECORD);
      }
    });
  };
}
