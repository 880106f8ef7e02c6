/**
 * `/signoff rules`: the standing rules proposed or signed off ("Approve and always allow…"), and
 * `/signoff rules approve|reject|revoke <n>` to move one, answered privately in a sentence. The
 * same checks as the rule's buttons (the engine's).
 */

import { isSignoffError } from '../../errors.js';
import { ruleLine } from '../blocks/rule-message.js';
import { slackActor } from './decide.js';
import { COULD_NOT_READ, COULD_NOT_RECORD, type ListenerDeps } from './deps.js';
import { ruleOutcome } from './listeners/actions/rule-buttons.js';
import { rulesSeen } from './overview.js';

export const RULES_USAGE =
  '`/signoff rules` lists them; `/signoff rules approve|reject|revoke <number>` moves one.';

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
