/**
 * "Always allow…" on a card: a modal that asks which reviews the rule should approve from now on
 * (the scopes the review offers), and says that the rule applies only once signed off. Sending it
 * approves the review and proposes the rule, together. Opened reading the review first (the
 * click's trigger lives 3 s), then filled.
 */
import type { types } from '@slack/bolt';
import { type RuleScope, shownJson } from '../../engine/index.js';
import { type ReviseMeta, reviseMetadata } from './revise-meta.js';
import { scopeMrkdwn } from './rule-message.js';
import { escapeMrkdwn, truncate } from './text.js';

export const ALWAYS_VIEW = 'signoff_always';
export const SCOPE_BLOCK = 'scope';

const TITLE = { type: 'plain_text', text: 'Approve and always allow' } as const;

export const alwaysLoading = (text = 'Reading the review…'): types.View => ({
  type: 'modal',
  title: TITLE,
  close: { type: 'plain_text', text: 'Cancel' },
  blocks: [{ type: 'section', text: { type: 'plain_text', text } }],
});

/** Who signs a rule off, in words (the config file's `alwaysAllow`). */
export type Signers = { reviewers: string[]; approvals: number };

const whom = (s: Signers) =>
  s.reviewers
    .map((r) => (r === 'anyone' ? 'anyone here' : r.startsWith('S') ? `<!subteam^${r}>` : `<@${r}>`))
    .join(', ');

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export function alwaysModal(meta: ReviseMeta, scopes: RuleScope[], signers: Signers): types.View {
  return {
    type: 'modal',
    callback_id: ALWAYS_VIEW,
    private_metadata: reviseMetadata({ ...meta, action: 'always' }),
    title: TITLE,
    submit: { type: 'plain_text', text: 'Approve and propose' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `This approves the review now, and proposes a rule that approves the reviews it covers from now on, once ${signers.approvals > 1 ? `${signers.approvals} of ` : ''}${whom(signers)} sign${signers.approvals > 1 ? '' : 's'} it off. Until then it does nothing.`,
        },
      },
      // A call's arguments whole (as far as a section holds them): the option says only "these".
      ...scopes
        .filter((s) => s.kind === 'call')
        .map((s) => ({
          type: 'section' as const,
          text: {
            type: 'mrkdwn' as const,
            text: truncate(
              `The arguments, for "exactly these":\n\`\`\`${escapeMrkdwn(shownJson(s.args ?? {}))}\`\`\``,
              3000,
            ),
          },
        })),
      {
        type: 'input',
        block_id: SCOPE_BLOCK,
        label: { type: 'plain_text', text: 'Always allow' },
        element: {
          type: 'radio_buttons',
          action_id: 'value',
          // An option's text and description hold 75 characters each: a call's arguments go below.
          options: scopes.map((s) => ({
            value: s.kind,
            text: {
              type: 'mrkdwn' as const,
              text: truncate(
                s.kind === 'call'
                  ? `Calls of ${escapeMrkdwn(s.tool ?? '')} with exactly these arguments`
                  : capital(scopeMrkdwn(s)),
                75,
              ),
            },
            ...(s.kind === 'call'
              ? {
                  description: {
                    type: 'plain_text' as const,
                    text: truncate(shownJson(s.args ?? {}), 75),
                  },
                }
              : {}),
          })),
        },
      },
    ],
  };
}
