/**
 * `/signoff rules`: the standing rules proposed or signed off ("Approve and always allow…"), and
 * `/signoff rules approve|reject|revoke <n>` to move one, answered privately in a sentence. The
 * same checks as the rule's buttons (the engine's), and, as the buttons are on the rule's message,
 * a rule is signed off or refused only by someone in the channel where it can be read.
 */

import { isSignoffError } from '../../errors.js';
import { ruleLine } from '../blocks/rule-message.js';
import { slackActor } from './decide.js';
import { COULD_NOT_READ, COULD_NOT_RECORD, type ListenerDeps } from './deps.js';
import { ruleOutcome } from './listeners/actions/rule-buttons.js';
import { rulesSeen } from './overview.js';

export const RULES_USAGE =
  '`/signoff rules` lists them; `/signoff rules approve|reject|revoke <number>` moves one.';

/**
 * Why `user` may not sign off (or refuse) rule `id` by its number: its message is in a channel
 * they are not in (or in the terminal), so they cannot have read what it would approve from then
 * on; `/signoff rules` does not list it to them either. Undefined when they can see it, or when no
 * such rule waits for sign-off (the engine then says why). A revoke approves nothing: not asked.
 */
async function notInSight(
  deps: ListenerDeps,
  user: string,
  id: number,
): Promise<{ said: string; code: string; taskId?: string } | undefined> {
  const rule = (await deps.engine.rules.list(['proposed'])).find((r) => r.id === id);
  if (!rule) return undefined;
  const channel = rule.scope.channel;
  const where = channel ? await deps.audience.among(user, [channel]) : { seen: [], unchecked: [] };
  if (where.seen.includes(channel)) return undefined;
  const taskId = rule.taskId ?? undefined;
  if (where.unchecked.includes(channel))
    return {
      said: 'Slack did not say just now whether you are in the channel of that rule; nothing was changed. Try again in a minute.',
      code: 'directory_unavailable',
      taskId,
    };
  return {
    said: `You can see no rule #${id} here, so nothing was changed: a rule is signed off by someone who can read it, in a channel they are in (on its message, or with this command).`,
    code: 'not_allowed',
    taskId,
  };
}

/** The answer to `/signoff rules …` (`words`: what followed "rules"). */
export async function rulesAnswer(
  deps: ListenerDeps,
  words: string[],
  who: { user: string; team?: string },
): Promise<string> {
  const [action, n, ...more] = words;
  if (!action) {
    // The rules of the channels the person is in, as the Home tab lists them.
    const rules = await rulesSeen(deps, who.user).catch(() => undefined);
    if (!rules) return COULD_NOT_READ;
    if (!deps.engine.rules.signers() && !rules.length)
      return "No rules: the config file's `alwaysAllow` names nobody to sign one off, so cards offer no Always allow.";
    // Kept, but applying nothing while the config file sets no alwaysAllow: said, never shown as at work.
    const off = deps.engine.rules.signers()
      ? []
      : [
          "_The config file's `alwaysAllow` is not set: these rules approve nothing, and none can be signed off._",
        ];
    return rules.length
      ? [`*Standing rules* (${RULES_USAGE})`, ...rules.map((r) => ruleLine(r, new Date())), ...off].join('\n')
      : `No rules proposed or signed off. A reviewer proposes one with *Always allow…* on a card. ${RULES_USAGE}`;
  }
  if (!['approve', 'reject', 'revoke'].includes(action) || !/^\d+$/.test(n ?? '') || more.length)
    return `Say which rule and what to do: ${RULES_USAGE}`;
  const id = Number(n);
  try {
    if (action !== 'revoke') {
      const unseen = await notInSight(deps, who.user, id);
      if (unseen) {
        // In the audit as the engine's own refusals of a rule are: who tried what, and why.
        await deps.engine
          .auditRefusal({
            actor: who.user,
            action: `rule_${action}`,
            taskId: unseen.taskId,
            code: unseen.code,
            message: unseen.said,
            detail: { rule: id },
          })
          .catch((err) => deps.logger.warn({ err }, 'a refused rule command was not audited'));
        return unseen.said;
      }
    }
    const signers = deps.engine.rules.signers();
    const actor = await slackActor(deps.directory, who.user, who.team, signers && [signers.reviewers]);
    const rule =
      action === 'revoke'
        ? await deps.engine.rules.revoke(id, actor)
        : await deps.engine.rules.decide(id, actor, action as 'approve' | 'reject');
    return ruleOutcome(rule, signers?.approvals);
  } catch (error) {
    if (isSignoffError(error) && error.code !== 'database_unavailable') return error.message;
    deps.logger.error({ err: error }, '/signoff rules failed');
    return COULD_NOT_RECORD;
  }
}
