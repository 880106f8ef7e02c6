/**
 * Overviews of work: `/signoff list` (what waits for you, the channel's open tasks) and the App
 * Home tab (reviews waiting for you, a page at a time; your recent tasks; the standing rules of
 * your channels). Each item links to its
 * thread, with the link Slack gave, and names its channel.
 */
import type { types } from '@slack/bolt';
import {
  type AllowRule,
  type Review,
  type Task,
  titleWithRound,
  type WaitingPage,
} from '../../engine/index.js';
import { slackOriginSchema } from '../shared/origin.js';
import { batchBlocks, listedWhole } from './batch.js';
import { STATUS } from './messages.js';
import { who } from './people.js';
import { RULE_ACTION_IDS, ruleLine } from './rule-message.js';
import { escapeMrkdwn, LIMITS, truncate } from './text.js';

type KnownBlock = types.KnownBlock;

/** Items per list: a home view holds at most 100 blocks (two lists of 20, and a few more). */
export const OVERVIEW_LIMIT = 20;

/** Reviews `/signoff list` shows before "and N more" (a message for one person, not a report). */
export const LIST_REVIEWS = 10;

/** Standing rules the Home tab lists (the rest: `/signoff rules`). */
const HOME_RULES = 10;

/** The Home tab's paging buttons: the next page of reviews (value: the last one shown), the first. */
export const HOME_ACTION_IDS = { more: 'signoff_home_more', first: 'signoff_home_first' } as const;

/**
 * The task's words, as text: whoever started it typed them, and as a link's label an address
 * typed there would show one place and open another.
 */
const taskWords = (task: Task) => escapeMrkdwn(truncate(task.text.replace(/\s+/g, ' '), 80));

/** Links to tasks' threads as Slack gave them (chat.getPermalink), by task id. */
export type ThreadLinks = ReadonlyMap<string, string>;

/**
 * A link to the task's thread, on a word of its own, when Slack gave it (permalinks.ts); without
 * one (Slack did not answer in time) there is none, never a link built by hand.
 */
function threadLink(task: Task, links: ThreadLinks): string | undefined {
  const link = links.get(task.id);
  return link ? `<${link}|open>` : undefined;
}

const taskLine = (task: Task, links: ThreadLinks) =>
  [
    STATUS[task.status],
    `*${escapeMrkdwn(task.workflow)}*`,
    taskWords(task),
    threadLink(task, links),
    who(task.requester),
  ]
    .filter(Boolean)
    .join(' · ');

/** The channel a task lives in, as Slack names it to the reader (`<#C…>`). */
function channelOf(task: Task): string | undefined {
  const origin = slackOriginSchema.safeParse(task.origin);
  return origin.success ? `<#${origin.data.channel}>` : undefined;
}

/**
 * A review waiting: its task (the link to the thread) and channel first, then what is asked. Many
 * reviews share a title ("Review the agents' work"): the task is what tells them apart.
 */
const reviewLine = ({ review, task }: { review: Review; task: Task }, links: ThreadLinks) =>
  [
    `:raised_hand: *${taskWords(task)}*`,
    threadLink(task, links),
    channelOf(task),
    // Whole (a title holds at most 150 characters): a checkbox of the list approves what it shows.
    escapeMrkdwn(titleWithRound(review.request)),
  ]
    .filter(Boolean)
    .join(' · ') + listedBody(review);

/** A short body in full, quoted under its line: what a checkbox of the list decides on. */
const listedBody = (review: Review) =>
  listedWhole(review) && review.request.body.trim()
    ? `\n${escapeMrkdwn(review.request.body.trim()).replace(/^/gm, '> ')}`
    : '';

/**
 * What Slack did not answer just now while a list was drawn: how many channels it could not say
 * the person is in or not, the user groups it could not say they are in, and whether it could not
 * say they are a member of the workspace. Reviews behind any of these are missing from the list
 * and its count, so the list says so instead of a confident count.
 */
export interface Unchecked {
  channels: number;
  groups: string[];
  standing: boolean;
}

const ALL_CHECKED: Unchecked = { channels: 0, groups: [], standing: false };

const partial = (u: Unchecked) => u.channels > 0 || u.groups.length > 0 || u.standing;

/** The sentence that says a list may be missing reviews, and what to do; none when all was checked. */
export function uncheckedSentence(u: Unchecked): string | undefined {
  if (!partial(u)) return undefined;
  const what = [
    u.channels
      ? `some channels could not be checked just now (Slack did not answer for ${u.channels} of them)`
      : undefined,
    u.groups.length
      ? `Slack did not say just now whether you are in ${u.groups.map((g) => `<!subteam^${g}>`).join(' or ')}`
      : undefined,
    u.standing ? 'Slack did not say just now whether you are a member of this workspace' : undefined,
  ].filter(Boolean);
  const said = what.join('; ');
  return `:warning: ${said.charAt(0).toUpperCase()}${said.slice(1)}, so reviews waiting for you may be missing from this list and its count; open this again in a minute.`;
}

/** A count as far as it goes: "at least 9" when something could not be checked. */
const counted = (n: number, u: Unchecked) => (partial(u) ? `at least ${n}` : String(n));

/**
 * `/signoff list`: what waits for the person asking (in every channel they are in, the oldest
 * first, and how many more), and the channel's open tasks, marking those that wait for them.
 */
export function channelOverview(
  tasks: Task[],
  forYou: WaitingPage,
  waitingHere: ReadonlySet<string>,
  links: ThreadLinks,
  unchecked: Unchecked = ALL_CHECKED,
): string {
  const warning = uncheckedSentence(unchecked);
  const waiting = forYou.total
    ? [
        `*Waiting for your review* (${counted(forYou.total, unchecked)}, oldest first):`,
        ...forYou.items.map((r) => `• ${reviewLine(r, links)}`),
        ...(forYou.more
          ? [`…and ${forYou.more} more: signoff's Home tab (under Apps) pages through them all.`]
          : []),
      ]
    : [warning ? '*Waiting for your review*: none found.' : '*Waiting for your review*: none.'];
  if (warning) waiting.push(warning);
  const open = tasks.length
    ? [
        `*Open tasks in this channel* (${tasks.length}${tasks.length === OVERVIEW_LIMIT ? '+' : ''}):`,
        ...tasks.map(
          (t) => `• ${taskLine(t, links)}${waitingHere.has(t.id) ? ' · *waiting for your review*' : ''}`,
        ),
      ]
    : ['No signoff tasks are open in this channel. Start one with `/signoff <workflow> <task>`.'];
  return [...waiting, '', ...open].join('\n');
}

/**
 * The Home tab's reviews: a page, where it stands among all of them, and the buttons to the next
 * page and back to the first. `after`: the review the page starts after (none: the first page).
 */
function waitingSection(
  forYou: WaitingPage,
  after: string | undefined,
  links: ThreadLinks,
  unchecked: Unchecked,
): KnownBlock[] {
  const section = (text: string): KnownBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });
  const total = counted(forYou.total, unchecked);
  const header: KnownBlock = {
    type: 'header',
    text: { type: 'plain_text', text: `Waiting for your review${forYou.total ? ` (${total})` : ''}` },
  };
  const warning = uncheckedSentence(unchecked);
  const head = warning ? [header, section(warning)] : [header];
  if (!forYou.items.length && !after)
    return warning ? head : [header, section('Nothing is waiting for you.')];
  const before = forYou.total - forYou.more - forYou.items.length;
  const last = forYou.items.at(-1)?.review.id;
  const buttons = [
    ...(forYou.more && last
      ? [{ type: 'button' as const, action_id: HOME_ACTION_IDS.more, value: last, text: plain('More') }]
      : []),
    ...(after
      ? [
          {
            type: 'button' as const,
            action_id: HOME_ACTION_IDS.first,
            value: 'first',
            text: plain('Back to the first'),
          },
        ]
      : []),
  ];
  const where = forYou.items.length
    ? `${before + 1}–${before + forYou.items.length} of ${total}, oldest first${
        forYou.more ? `, and ${forYou.more} more` : ''
      }.`
    : 'Nothing more is waiting for you.';
  return [
    ...head,
    ...forYou.items.map((r) => section(reviewLine(r, links))),
    ...batchBlocks(forYou.items),
    { type: 'context', elements: [{ type: 'mrkdwn', text: where }] },
    ...(buttons.length ? [{ type: 'actions', block_id: 'home_pages', elements: buttons } as KnownBlock] : []),
  ];
}

const plain = (text: string) => ({ type: 'plain_text' as const, text });

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

/**
 * The App Home tab; `after`: the review its page of reviews starts after (none: the first page);
 * `links`: the links to the tasks' threads Slack gave; `unchecked`: what Slack did not answer.
 */
export function homeView(
  forYou: WaitingPage,
  mine: Task[],
  pace: WorkflowPace[],
  links: ThreadLinks,
  after?: string,
  unchecked: Unchecked = ALL_CHECKED,
  standing: { rules: AllowRule[]; off: boolean } = { rules: [], off: false },
) {
  const section = (text: string): KnownBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });
  const blocks: KnownBlock[] = [
    ...waitingSection(forYou, after, links, unchecked),
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
    ...rulesSection(standing),
  ];
  return { type: 'home' as const, blocks };
}

/**
 * The standing rules of the person's channels, newest first, each with Revoke (the engine checks
 * who may); `off`: the config file sets no alwaysAllow, so they apply nothing.
 */
function rulesSection({ rules, off }: { rules: AllowRule[]; off: boolean }): KnownBlock[] {
  if (!rules.length) return [];
  const now = new Date();
  return [
    { type: 'divider' },
    { type: 'header', text: { type: 'plain_text', text: 'Standing rules' } },
    // Kept, but applying nothing while the config file sets no alwaysAllow: said, never shown as at work.
    ...(off
      ? [
          {
            type: 'context' as const,
            elements: [
              {
                type: 'mrkdwn' as const,
                text: "The config file's `alwaysAllow` is not set: these rules approve nothing until it is.",
              },
            ],
          },
        ]
      : []),
    ...rules.slice(0, HOME_RULES).map(
      (rule): KnownBlock => ({
        type: 'section',
        text: { type: 'mrkdwn', text: truncate(ruleLine(rule, now), LIMITS.sectionText) },
        accessory: {
          type: 'button',
          action_id: RULE_ACTION_IDS.revoke,
          text: { type: 'plain_text', text: 'Revoke' },
          value: JSON.stringify({ rule: rule.id }),
        },
      }),
    ),
  ];
}
