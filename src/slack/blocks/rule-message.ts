/**
 * A standing rule's message in the thread it was proposed from ("Approve and always allow…"):
 * what it covers, who proposed it, where its sign-off stands, and the buttons that move it
 * (approve or refuse while proposed; revoke while it may still approve anything). Redrawn as it
 * changes; the buttons carry only the rule's number (the engine checks who clicks).
 */
import type { types } from '@slack/bolt';
import { type AllowRule, type RuleScope, scopeInWords } from '../../engine/index.js';
import type { SlackMessage } from './messages.js';
import { mentions, slackDate } from './people.js';
import { escapeMrkdwn } from './text.js';

export const RULE_ACTION_IDS = {
  approve: 'signoff_rule_approve',
  reject: 'signoff_rule_reject',
  revoke: 'signoff_rule_revoke',
} as const;

/** Where the channel goes in the words before they are escaped (a channel id needs no escaping). */
const CHANNEL = '{channel}';

/** What a scope covers, as mrkdwn: its channel a link, the rest (a tool's name, its arguments) escaped. */
export const scopeMrkdwn = (scope: RuleScope) =>
  escapeMrkdwn(scopeInWords(scope, () => CHANNEL)).replace(CHANNEL, `<#${scope.channel}>`);

export const ruleKey = (id: number) => `rule:${id}`;

const button = (
  action: keyof typeof RULE_ACTION_IDS,
  id: number,
  text: string,
  style?: 'primary' | 'danger',
) => ({
  type: 'button' as const,
  action_id: RULE_ACTION_IDS[action],
  text: { type: 'plain_text' as const, text },
  value: JSON.stringify({ rule: id }),
  ...(style ? { style } : {}),
});

export function ruleMessage(
  rule: AllowRule,
  signers: { reviewers: string[]; approvals: number } | undefined,
  now: Date,
): SlackMessage {
  // The channel as a link, the rest (a tool's name, its arguments) escaped as text.
  const covers = escapeMrkdwn(scopeInWords(rule.scope, () => CHANNEL)).replace(
    CHANNEL,
    `<#${rule.scope.channel}>`,
  );
  const by = rule.approvals.map((a) => `<@${a.by}>`).join(' and ');
  const who = signers
    ? `${signers.approvals > 1 ? `${signers.approvals} of ` : ''}${mentions(signers.reviewers, rule.proposedBy)}`
    : 'the people the config file names';
  const expired = rule.expiresAt !== null && Date.parse(rule.expiresAt) <= now.getTime();
  const head = `:scales: *Rule #${rule.id}*: always allow ${covers}. Proposed by <@${rule.proposedBy}>.`;
  const state =
    rule.status === 'proposed'
      ? `It does nothing until ${who} sign${signers && signers.approvals > 1 ? '' : 's'} it off.${by ? ` Approved so far by ${by}.` : ''}`
      : rule.status === 'active'
        ? expired
          ? `Signed off by ${by}; it expired ${slackDate(rule.expiresAt as string)} and approves nothing more.`
          : `:white_check_mark: Signed off by ${by}: it approves what it covers as it is asked${rule.expiresAt ? `, until ${slackDate(rule.expiresAt)}` : ''}.`
        : rule.status === 'refused'
          ? `:x: Refused by <@${rule.decidedBy}>: it approves nothing.`
          : `:heavy_minus_sign: Revoked by <@${rule.revokedBy}>: it approves nothing more.`;
  const buttons =
    rule.status === 'proposed'
      ? [button('approve', rule.id, 'Approve rule', 'primary'), button('reject', rule.id, 'Refuse', 'danger')]
      : rule.status === 'active' && !expired
        ? [button('revoke', rule.id, 'Revoke', 'danger')]
        : [];
  const blocks: types.KnownBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `${head}\n${state}` } },
    ...(buttons.length ? [{ type: 'actions' as const, block_id: `rule:${rule.id}`, elements: buttons }] : []),
  ];
  return { text: `Rule #${rule.id}: always allow ${scopeInWords(rule.scope)}`, blocks };
}

/** One rule, one line, as `/signoff rules` and the Home tab list it. */
export function ruleLine(rule: AllowRule, now: Date): string {
  const covers = scopeMrkdwn(rule.scope);
  const by = rule.approvals.map((a) => `<@${a.by}>`).join(', ');
  const expired = rule.expiresAt !== null && Date.parse(rule.expiresAt) <= now.getTime();
  const state =
    rule.status === 'proposed'
      ? `proposed by <@${rule.proposedBy}>${by ? `, approved so far by ${by}` : ''}`
      : expired
        ? `expired (signed off by ${by})`
        : `active: signed off by ${by}, ${rule.applied} review${rule.applied === 1 ? '' : 's'} approved${rule.expiresAt ? `, until ${rule.expiresAt.slice(0, 10)}` : ''}`;
  return `• *#${rule.id}* always allow ${covers} — ${state}`;
}
