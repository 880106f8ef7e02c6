/**
 * Block Kit for what the bot posts in a task's thread: the root message (the task, its live
 * status and plan) and agents' messages (split so that Slack never refuses them).
 */
import type { types } from '@slack/bolt';
import { type Task, type TaskStatus, usageInWords } from '../../engine/index.js';
import { who } from './people.js';
import { planBlock } from './plan.js';
import { blockTextRoom, escapeMrkdwn, LIMITS, markdownParts, truncate } from './text.js';

type KnownBlock = types.KnownBlock;

export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
}

export const STATUS: Record<TaskStatus, string> = {
  working: ':hourglass_flowing_sand: Working',
  waiting: ':raised_hand: Waiting for review',
  done: ':white_check_mark: Done',
  rejected: ':no_entry_sign: Rejected',
  stopped: ':octagonal_sign: Stopped without approval',
  cancelled: ':heavy_minus_sign: Cancelled',
  failed: ':warning: Failed',
};

/**
 * Buttons on the root message. Their value carries nothing: the task is the one whose root
 * message was clicked (team, channel and ts come from Slack's signed payload).
 */
export const TASK_ACTION_IDS = {
  cancel: 'signoff_cancel',
  retry: 'signoff_retry',
  history: 'signoff_history',
} as const;

function taskControls(status: TaskStatus): KnownBlock[] {
  const plain = (text: string) => ({ type: 'plain_text' as const, text });
  const cancel = {
    type: 'button' as const,
    action_id: TASK_ACTION_IDS.cancel,
    value: 'task',
    text: plain('Cancel task'),
    // Every part of a confirm dialog is plain_text: Slack refuses mrkdwn there (invalid_blocks).
    confirm: {
      title: plain('Cancel this task?'),
      text: plain('The agents stop and open reviews close without a decision.'),
      confirm: plain('Cancel task'),
      deny: plain('Keep it'),
      style: 'danger' as const,
    },
  };
  // While agents work, the same cancel reads as what it does to them: it stops them.
  const stop = {
    ...cancel,
    text: plain('Stop'),
    confirm: {
      title: plain('Stop this task?'),
      text: plain('The agents stop now and the task ends; open reviews close without a decision.'),
      confirm: plain('Stop'),
      deny: plain('Keep working'),
      style: 'danger' as const,
    },
  };
  const retry = {
    type: 'button' as const,
    action_id: TASK_ACTION_IDS.retry,
    value: 'task',
    style: 'primary' as const,
    text: { type: 'plain_text' as const, text: 'Retry' },
  };
  // Who decided what, at any time: the task's audit trail in a modal.
  const history = {
    type: 'button' as const,
    action_id: TASK_ACTION_IDS.history,
    value: 'task',
    text: { type: 'plain_text' as const, text: 'History' },
  };
  if (status === 'working') return [{ type: 'actions', elements: [stop, history] }];
  if (status === 'waiting') return [{ type: 'actions', elements: [cancel, history] }];
  if (status === 'failed') return [{ type: 'actions', elements: [retry, cancel, history] }];
  return [{ type: 'actions', elements: [history] }];
}

/**
 * The task's root message: who asked, the workflow, the task, its status in words, and its plan
 * once a run has written one (a finished task keeps its last).
 */
export function rootMessage(
  task: Pick<Task, 'requester' | 'workflow' | 'text'> &
    Partial<Pick<Task, 'progress' | 'tokensIn' | 'tokensOut' | 'costUsd' | 'budgetUsd'>>,
  status: TaskStatus,
  reason?: string | null,
  options: { controls?: boolean } = {},
): SlackMessage {
  // What its models cost so far, when they answered (counted as they go: usage.ts).
  const spent =
    task.tokensIn !== undefined
      ? usageInWords({
          tokensIn: task.tokensIn,
          tokensOut: task.tokensOut ?? 0,
          costUsd: task.costUsd ?? 0,
          budgetUsd: task.budgetUsd ?? null,
        })
      : undefined;
  const statusLine = `${STATUS[status]}${reason ? ` — ${escapeMrkdwn(truncate(reason, 300))}` : ''}${spent ? ` · ${spent}` : ''}`;
  const plan = planBlock(task.progress, status);
  return {
    text: escapeMrkdwn(
      `${task.workflow}: ${truncate(task.text, 200)} (${STATUS[status].replace(/^:[a-z_]+: /, '')})`,
    ),
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: truncate(
            `${who(task.requester)} started *${escapeMrkdwn(task.workflow)}*:\n>${escapeMrkdwn(task.text).replace(/\n/g, '\n>')}`,
            LIMITS.sectionText,
          ),
        },
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: statusLine }] },
      ...(plan ? [plan] : []),
      ...(options.controls === false ? [] : taskControls(status)),
    ],
  };
}

/** An agent's message as one or more Slack messages, each within every limit. */
export function agentMessages(text: string): SlackMessage[] {
  // One markdown block a message: within markdown's own limit and the message's, its container counted.
  const max = Math.min(LIMITS.markdownPerPayload, blockTextRoom(1));
  return markdownParts(text.trim() || '(no output)', max).map((part) => ({
    text: escapeMrkdwn(truncate(text.trim() || '(no output)', LIMITS.sectionText)),
    blocks: [{ type: 'markdown', text: part } as KnownBlock],
  }));
}

/** Said in the thread when a reply redirected the task (seed 003). */
export function redirectedMessage(e: { text: string; by: string; abandoned: string }): SlackMessage {
  const quote = (t: string) => `>${escapeMrkdwn(truncate(t, 1200)).replace(/\n/g, '\n>')}`;
  return {
    text: escapeMrkdwn(`Redirected: ${truncate(e.text, 200)}`),
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: truncate(
            `:twisted_rightwards_arrows: <@${e.by}> redirected this task. The agents stopped what they were doing and start over on the new goal:\n${quote(e.text)}\nDropped:\n${quote(e.abandoned)}`,
            LIMITS.sectionText,
          ),
        },
      },
    ],
  };
}
