/**
 * Overviews of work: `/signoff list` (a channel's open tasks) and the App Home tab (reviews waiting
 * for you, your recent tasks). Each item links to its thread, with the link Slack gave.
 */
import type { types } from '@slack/bolt';
import type { Review, Task } from '../../engine/types.js';
import { STATUS } from './messages.js';
import { escapeMrkdwn, LIMITS, truncate } from './text.js';

type KnownBlock = types.KnownBlock;

/** Items per list: a home view holds at most 100 blocks. */
export const OVERVIEW_LIMIT = 20;

/** Links to tasks' threads as Slack gave them (chat.getPermalink), by task id. */
export type ThreadLinks = ReadonlyMap<string, string>;

/**
 * The task, linked to its thread when Slack gave its link (permalinks.ts); without one (Slack
 * did not answer in time) the words stand alone, never a link built by hand.
 */
function threadLink(task: Task, links: ThreadLinks): string {
  const label = escapeMrkdwn(truncate(task.text.replace(/\s+/g, ' '), 80)).replace(/\|/g, '¦');
  const link = links.get(task.id);
  return link ? `<${link}|${label}>` : label;
}

const taskLine = (task: Task, links: ThreadLinks) =>
  `${STATUS[task.status]} · *${escapeMrkdwn(task.workflow)}* · ${threadLink(task, links)} · <@${task.requester}>`;

const reviewLine = ({ review, task }: { review: Review; task: Task }, links: ThreadLinks) =>
  `:raised_hand: *${escapeMrkdwn(truncate(review.request.title, 120))}* (round ${review.request.round}) · ${threadLink(task, links)}`;

/** `/signoff list`: the channel's open tasks, and which of them wait for the person asking. */
export function channelOverview(
  tasks: Task[],
  forYou: { review: Review; task: Task }[],
  links: ThreadLinks,
): string {
  if (tasks.length === 0)
    return 'No signoff tasks are open in this channel. Start one with `/signoff <workflow> <task>`.';
  const waiting = new Set(forYou.map((r) => r.task.id));
  return [
    `*Open tasks in this channel* (${tasks.length}${tasks.length === OVERVIEW_LIMIT ? '+' : ''}):`,
    ...tasks.map((t) => `• ${taskLine(t, links)}${waiting.has(t.id) ? ' · *waiting for your review*' : ''}`),
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
export function homeView(
  forYou: { review: Review; task: Task }[],
  mine: Task[],
  pace: WorkflowPace[],
  links: ThreadLinks,
) {
  const section = (text: string): KnownBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: 'Waiting for your review' } },
    ...(forYou.length
      ? forYou.slice(0, OVERVIEW_LIMIT).map((r) => section(reviewLine(r, links)))
      : [section('Nothing is waiting for you.')]),
    { type: 'divider' },
    { type: 'header', text: { type: 'plain_text', text: 'Your tasks' } },
    ...(mine.length
      ? mine.slice(0, OVERVIEW_LIMIT).map((t) => section(taskLine(t, links)))
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
