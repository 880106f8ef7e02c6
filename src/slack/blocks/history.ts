/**
 * A task's History (the button on its root message): the audit trail of that task in a modal,
 * newest last, each line saying who did what, on which step and round, and what came of it.
 */
import type { types } from '@slack/bolt';
import type { AuditEntry } from '../../engine/index.js';
import { SYSTEM_ACTOR, type Task } from '../../engine/index.js';
import { isPerson, mentions, slackDate } from './people.js';
import { escapeMrkdwn, LIMITS, truncate } from './text.js';

/** Lines per section, and the most lines shown (a modal holds 100 blocks). */
const PER_SECTION = 10;
export const HISTORY_SHOWN = 300;

const VERBS: Record<string, string> = {
  start: 'started the task',
  approve: 'approved',
  edit: 'approved with edits',
  revise: 'asked for a revision',
  reject: 'rejected',
  escalate: 'escalated the review',
  cancel: 'cancelled the task',
  redirect: 'redirected the task',
  retry: 'retried the task',
};

const person = (who: string) =>
  who === SYSTEM_ACTOR ? 'signoff' : isPerson(who) ? `<@${who}>` : escapeMrkdwn(who);

/** N of M: " (1 of 2 approvals)" for an approval counted or the one that completed the quorum. */
const approvalsNote = (e: AuditEntry) => (e.approvals ? ` (${e.approvals.split(':')[0]} approvals)` : '');

/** One entry in words: "10:02 <@U1> approved _review, round 2_ (counted towards the quorum)". */
export function historyLine(e: AuditEntry): string {
  const verb = VERBS[e.action] ?? escapeMrkdwn(e.action);
  const step = e.checkpoint ? ` _${escapeMrkdwn(e.checkpoint)}${e.round ? `, round ${e.round}` : ''}_` : '';
  const what =
    e.result === 'refused'
      ? `tried to ${e.action}${step}: *refused* (${escapeMrkdwn(truncate(e.reason ?? '', 200))})`
      : `${verb}${step}${e.to ? ` to ${mentions(e.to.split(' '), '')}` : ''}${approvalsNote(e)}`;
  const rule = e.rule ? ` automatically: ${escapeMrkdwn(truncate(e.rule, 200))}` : '';
  // A person's words under the line: a revise's feedback, or a reject's reason (a refusal's is above).
  const words = e.feedback ?? (e.action === 'reject' && e.result !== 'refused' ? e.reason : null);
  const feedback = words ? `\n>${escapeMrkdwn(truncate(words, 300)).replace(/\n/g, ' ')}` : '';
  const hash = e.contentHash && e.result !== 'refused' ? ` \`${e.contentHash}\`` : '';
  return `${slackDate(e.at)} ${person(e.who)} ${what}${rule}${hash}${feedback}`;
}

/** The modal: the task, then its trail (the latest `HISTORY_SHOWN` entries, saying if more exist). */
export function historyModal(
  task: Pick<Task, 'id' | 'workflow' | 'text'>,
  entries: AuditEntry[],
): types.View {
  const shown = entries.slice(-HISTORY_SHOWN);
  const lines = shown.map(historyLine);
  const sections: types.KnownBlock[] = [];
  for (let i = 0; i < lines.length; i += PER_SECTION) {
    sections.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: truncate(lines.slice(i, i + PER_SECTION).join('\n'), LIMITS.sectionText),
      },
    });
  }
  const earlier = entries.length - shown.length;
  return {
    type: 'modal',
    title: { type: 'plain_text', text: 'Task history' },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: truncate(
            `*${escapeMrkdwn(task.workflow)}*: ${escapeMrkdwn(truncate(task.text, 300))}`,
            LIMITS.sectionText,
          ),
        },
      },
      { type: 'divider' },
      ...(sections.length
        ? sections
        : [{ type: 'section', text: { type: 'mrkdwn', text: 'Nothing recorded yet.' } } as types.KnownBlock]),
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: `${earlier > 0 ? `${earlier} earlier entries are not shown. ` : ''}The full trail, for an auditor: \`signoff audit ${task.id}\``,
          },
        ],
      },
    ],
  };
}

/** Shown at once (the click's trigger lives 3 s); the trail replaces it when read. */
export const historyLoading = (): types.View => ({
  type: 'modal',
  title: { type: 'plain_text', text: 'Task history' },
  close: { type: 'plain_text', text: 'Close' },
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Reading the history…' } }],
});

/** When there is no trail to show: what happened, and what to do. */
export const historyFailed = (
  text = 'The history could not be read just now. Close this and try again in a minute.',
): types.View => ({
  ...historyLoading(),
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
});
