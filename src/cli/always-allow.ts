/**
 * "always" at a review in the terminal: approve it and propose a rule that approves what it
 * covers from now on, once the people the config file's `alwaysAllow` names sign it off. The
 * scopes the review offers are listed by number; Enter alone goes back to the review.
 */
import {
  approvalsNeeded,
  contentHash,
  DecisionRefused,
  type Engine,
  type Review,
  scopeInWords,
} from '../engine/index.js';
import { isSignoffError } from '../errors.js';
import { CLI } from './help.js';
import { answerTo, type LineSource } from './lines.js';
import type { Output } from './printer.js';

export async function alwaysAllow(
  deps: { engine: Engine; lines: LineSource; out: Output; actor: string; cli?: string },
  taskId: string,
  review: Review,
): Promise<'ended' | undefined> {
  const { engine, out } = deps;
  const task = await engine.getTask(taskId);
  const scopes = task ? engine.rules.scopes(review, task) : [];
  if (!scopes.length) {
    out.write(
      engine.rules.signers()
        ? 'This review cannot be always allowed (a budget review never is). Back to the review.\n'
        : "Always allow is not set up here: the config file's alwaysAllow names who signs off a rule. Back to the review.\n",
    );
    return undefined;
  }
  out.write(
    `Approve this, and propose a rule that approves what it covers from now on, once someone signs it off with ${deps.cli ?? CLI} rules approve <n>. What should it cover?\n${scopes
      .map((s, i) => `  ${i + 1}. ${scopeInWords(s)}`)
      .join('\n')}\n`,
  );
  for (;;) {
    const line = await answerTo(deps.lines, out, 'always> ');
    if (line === undefined) return 'ended';
    if (!line.trim()) {
      out.write('Nothing decided. Back to the review.\n');
      return undefined;
    }
    const scope = scopes[Number(line.trim()) - 1];
    if (!/^\d+$/.test(line.trim()) || !scope) {
      out.write(`Type a number from 1 to ${scopes.length}, or Enter to go back.\n`);
      continue;
    }
    try {
      const done = await engine.rules.propose({
        reviewId: review.id,
        taskId,
        actor: { id: deps.actor },
        contentHash: contentHash(review.request),
        scope: scope.kind,
      });
      // The rule itself is printed as the task's feed shows it; here, what became of the review.
      out.write(
        done.review.status === 'decided'
          ? `Approved; rule #${done.rule.id} is proposed.\n`
          : `Your approval is recorded (${done.review.approvals.length} of ${approvalsNeeded(done.review.settings)}); rule #${done.rule.id} is proposed.\n`,
      );
    } catch (error) {
      if (!(error instanceof DecisionRefused) && !isSignoffError(error, 'rules_off')) throw error;
      out.write(`${error.message}\n`);
    }
    return undefined;
  }
}
