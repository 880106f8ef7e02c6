/**
 * `signoff rules`: the rules a team signed off or is asked to ("Approve and always allow…"), and
 * `signoff rules approve|reject|revoke <n>` to sign one off, refuse it or end it.
 */
import { type AllowRule, type Engine, operator, scopeInWords } from '../engine/index.js';
import { SignoffError } from '../errors.js';
import { CLI, SHELL } from './help.js';
import type { Output } from './printer.js';

export const RULE_ACTIONS = ['approve', 'reject', 'revoke'] as const;

/** One rule, one line: its number, what it covers, where it stands. */
export function ruleRow(rule: AllowRule, now: Date, needed?: number): string {
  const approvals = rule.approvals.map((a) => a.by).join(', ');
  const expired = rule.expiresAt && Date.parse(rule.expiresAt) <= now.getTime();
  const count = needed ? ` (${rule.approvals.length} of ${needed} sign-offs)` : '';
  const state =
    rule.status === 'proposed'
      ? `proposed by ${rule.proposedBy}${count}${approvals ? `; approved so far by ${approvals}` : ''}`
      : rule.status === 'active'
        ? `${expired ? 'expired' : 'active'}: signed off by ${approvals}; approved ${rule.applied} review${rule.applied === 1 ? '' : 's'}${rule.expiresAt && !expired ? `; until ${rule.expiresAt}` : ''}`
        : rule.status === 'revoked'
          ? `revoked by ${rule.revokedBy}`
          : `refused by ${rule.decidedBy}`;
  return `#${rule.id}  always allow ${scopeInWords(rule.scope)} — ${state}`;
}

export async function rulesCommand(
  rest: string[],
  engine: Engine,
  out: Output,
  actor: string,
  /** How the hints name a command (help.ts: SHELL, or AT_THE_PROMPT). */
  cli = SHELL,
): Promise<number> {
  const [action, n] = rest;
  const signers = engine.rules.signers();
  const needed = signers?.approvals;
  // Rules are kept in the database, but they apply only while the config file sets alwaysAllow.
  const off = signers
    ? ''
    : `Always allow is not set up in this config (no alwaysAllow): these rules approve nothing, and none can be signed off. Run with the config file that sets it: SIGNOFF_CONFIG=<file> ${CLI} rules.\n`;
  if (!action) {
    const [rules, ended] = await Promise.all([
      engine.rules.list(['proposed', 'active']),
      engine.rules.list(['revoked', 'refused']),
    ]);
    const past = ended.length ? `(${ended.length} revoked or refused: see ${cli}audit)\n` : '';
    out.write(
      rules.length
        ? `${rules.map((r) => ruleRow(r, new Date(), needed)).join('\n')}\n${past}${off}`
        : `No rules proposed or signed off.\n${past}`,
    );
    return 0;
  }
  if (off && action !== 'revoke') throw new SignoffError('rules_off', off.trim());
  const id = Number(n);
  const rule =
    action === 'revoke'
      ? await engine.rules.revoke(id, operator(actor))
      : await engine.rules.decide(id, { id: actor }, action as 'approve' | 'reject');
  out.write(`${ruleRow(rule, new Date(), needed)}\n`);
  return 0;
}
