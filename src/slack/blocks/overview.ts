/**
 * Overviews of work: `/signoff list` (a channel's open tasks) and the App Home tab (reviews waiting
 * for you, your recent tasks). Each item links to its thread.
 */
import type { types } from '@slack/bolt';
import type { Review, Task } from '../../engine/types.js';
import { slackOriginSchema } from '../origin.js';
import { STATUS } from './messages.js';
import { escapeMrkdwn, LIMITS, truncate } from './text.js';

type KnownBlock = types.KnownBlock;

/** Items per list: a home view holds at most 100 blocks. */
export const OVERVIEW_LIMIT = 20;

/** A link to the task's thread; Slack resolves archive links for any member of the workspace. */
function threadLink(task: Task): string {
  const label = escapeMrkdwn(truncate(task.text.replace(/\s+/g, ' '), 80)).replace(/\|/g, '¦');
  const origin = slackOriginSchema.safeParse(task.origin);
  if (!origin.success) return label;
  return `<https://slack.com/archives/${origin.data.channel}/p${origin.data.ts.replace('.', '')}|${label}>`;
}

const taskLine = (task: Task) =>
  `${STATUS[task.status]} · *${escapeMrkdwn(task.workflow)}* · ${threadLink(task)} · <@${task.requester}>`;

const reviewLine = ({ review, task }: { review: Review; task: Task }) =>
  `:raised_hand: *${escapeMrkdwn(truncate(review.request.title, 120))}* (round ${review.request.round}) · ${threadLink(task)}`;

/** `/signoff list`: the channel's open tasks, and which of them wait for the person asking. */
export function channelOverview(tasks: Task[], forYou: { review: Review; task: Task }[]): string {
  if (tasks.length === 0)
    return 'No signoff tasks are open in this channel. Start one with `/signoff <workflow> <task>`.';
  const waiting = new Set(forYou.map((r) => r.task.id));
  return [
    `*Open tasks in this channel* (${tasks.length}${tasks.length === OVERVIEW_LIMIT ? '+' : ''}):`,
    ...tasks.map((t) => `• ${taskLine(t)}${waiting.has(t.id) ? ' · *waiting for your review*' : ''}`),
  ].join('\n');
}

/** One workflow's reviews in the channels a person is in: waiting now, and decisions of the last week. */
export interface WorkflowPace {
  workflow: string;
  waiting: number;
  decisions: number;
  medianSeconds?: number;
}

/** 2520 → "42m", 5400 → "1.5h", 200000 → "2.3d": a time to decision at a glance. */
export function roughDuration(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)}s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)}m`;
  if (seconds < 36 * 3600) return `${Number((seconds / 3600).toFixed(1))}h`;
  return `${Number((seconds / 86400).toFixed(1))}d`;
}

const paceLine = (p: WorkflowPace) =>
  `*${escapeMrkdwn(p.workflow)}* · ${p.waiting} waiting · ${
    p.medianSeconds === undefined
      ? 'no decisions in the last 7 days'
      : `median time to decision ${roughDuration(p.medianSeconds)} (${p.decisions} decision${p.decisions === 1 ? '' : 's'}, last 7 days)`
  }`;

/** The App Home tab. */
export function homeView(forYou: { review: Review; task: Task }[], mine: Task[], pace: WorkflowPace[] = []) {
  const section = (text: string): KnownBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: 'Waiting for your review' } },
    ...(forYou.length
      ? forYou.slice(0, OVERVIEW_LIMIT).map((r) => section(reviewLine(r)))
      : [section('Nothing is waiting for you.')]),
    { type: 'divider' },
    { type: 'header', text: { type: 'plain_text', text: 'Your tasks' } },
    ...(mine.length
      ? mine.slice(0, OVERVIEW_LIMIT).map((t) => section(taskLine(t)))
      : [section('You have not started any task. Type `/signoff help` in a channel to see the workflows.')]),
    ...(pace.length
      ? [
          { type: 'divider' } as KnownBlock,
          { type: 'header', text: { type: 'plain_text', text: 'Reviews by workflow' } } as KnownBlock,
          section(truncate(pace.slice(0, 30).map(paceLine).join('\n'), LIMITS.sectionText)),
        ]
      : []),
  ];
  return { type: 'home' as const, blocks };
}
