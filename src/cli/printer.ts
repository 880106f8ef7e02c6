/**
 * How the terminal shows events and reviews: Markdown rendered for a terminal, times in local
 * time, and a review that does not repeat what the agents just said. What agents and people wrote
 * is printed as text: control sequences in it (a screen clear, a window title, a hyperlink, a
 * cursor move) would act on the reader's terminal, so they are dropped before any styling.
 */

import { stripVTControlCharacters } from 'node:util';
import {
  type Action,
  type AllowRule,
  approvalsNeeded,
  type DeliveredEvent,
  eventInWords,
  type Review,
  type Sink,
  scopeInWords,
  type Task,
  titleWithRound,
} from '../engine/index.js';
import { atTheKeyboard } from '../failures.js';
import { choicesOf } from './choices.js';
import { CLI } from './help.js';
import { PLAIN_STYLE, renderMarkdown, type Style } from './markdown.js';
import { unseen } from './unseen.js';
import { when } from './when.js';

export interface Output {
  write(text: string): void;
  /** A line that the next write replaces ("Writer is thinking…"); only a terminal has one. */
  status?(text?: string): void;
}

/** How to show: emphasis as ANSI styles or plain, and the time that due times are counted from. */
export interface Show {
  style: Style;
  now(): Date;
  /** The command as hints name it (with the config file, when there is one). */
  cli?: string;
}
const PLAIN: Show = { style: PLAIN_STYLE, now: () => new Date() };

const STATUS_WORDS: Record<Task['status'], string> = {
  working: 'working',
  waiting: 'waiting for review',
  done: 'done',
  rejected: 'rejected',
  stopped: 'stopped without approval',
  cancelled: 'cancelled',
  failed: 'failed',
};
export const statusWords = (status: Task['status']) => STATUS_WORDS[status];

/**
 * A status with its reason, the reason's words not repeating the status's: "rejected at review",
 * "cancelled by cli:ann", not "rejected (rejected at review)". `join` goes between the two otherwise.
 */
export function statusWithReason(
  status: Task['status'],
  reason: string | null | undefined,
  join: [string, string],
) {
  const words = statusWords(status);
  if (!reason) return words;
  if (reason.toLowerCase().startsWith(`${words} `)) return `${words}${reason.slice(words.length)}`;
  return `${words}${join[0]}${reason}${join[1]}`;
}

/** What a decision means on its card: the card's word for it ("search more"), or the action's. */
const meaning = (request: Review['request'], action: Action) =>
  (request.labels[action] ?? action).toLowerCase();

/**
 * Terminal strings (OSC, DCS, SOS, PM, APC: a title, a hyperlink) with their text, up to their
 * terminator; util's stripVTControlCharacters takes CSI and the rest but leaves some of these.
 */
const TERMINAL_STRING =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control sequences are what it removes
  /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)/g;
/** What is left of C0 (but newline and tab), DEL and C1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
export const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text as the terminal prints it: newlines and tabs stay, a carriage return is a newline, no
 * control sequence; and signoff's own advice for whoever runs it (stored as Slack shows it) is
 * said to the person at the keyboard, who does.
 */
export const printable = (text: string): string =>
  atTheKeyboard(
    stripVTControlCharacters(text.replace(TERMINAL_STRING, '').replace(/\r\n?/g, '\n')).replace(CONTROL, ''),
  );

/** Every string in plain data (an event, a review) made printable; styling comes after. */
function printableValues<T>(value: T): T {
  if (typeof value === 'string') return printable(value) as T;
  if (Array.isArray(value)) return value.map(printableValues) as T;
  if (value && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value))) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, printableValues(v)])) as T;
  }
  return value;
}

/** The review and its choices; `shown` is what the agents just said, not printed again. */
export function formatReview(given: Review, show: Show = PLAIN, shown: string[] = []): string {
  const review = printableValues(given);
  const r = review.request;
  const due = review.dueAt ? `  due ${when(review.dueAt, show.now())}` : '';
  const needed = approvalsNeeded(review.settings);
  const body = unseen(r.body, shown);
  // A review with nothing but its title (a graph's interrupt, a door's ask without content) has no
  // body lines: an empty one printed as a lone "│ " between the title and the choices.
  const lines = body.trim() ? renderMarkdown(body, show.style).split('\n') : [];
  return [
    '',
    `┌─ ${show.style.bold(`Review: ${titleWithRound(r)}`)}${due}`,
    ...(needed > 1 ? [`│ (${approvalProgress(review)}; any reject ends the review)`] : []),
    ...lines.map((line) => `│ ${line}`),
    `└─ ${choicesOf(review)}.`,
  ].join('\n');
}

/** "1 of 2 approvals: alice" */
export const approvalProgress = (review: Review) =>
  `${review.approvals.length} of ${approvalsNeeded(review.settings)} approvals${review.approvals.length ? `: ${review.approvals.map((a) => a.by).join(', ')}` : ''}`;

/** The line that opens a followed task (`run`, `resume`): which task, its workflow, what it is. */
export const taskHeading = (task: Pick<Task, 'id' | 'workflow' | 'text'>) =>
  `Task ${task.id} (${task.workflow}): ${printable(task.text)}`;

export function formatEvent(delivered: DeliveredEvent, show: Show = PLAIN): string | undefined {
  const event = printableValues(delivered.event);
  const due = (iso: string | null) => (iso ? when(iso, show.now()) : 'never');
  switch (event.type) {
    case 'task_started':
      return taskHeading(event.task);
    case 'agent_said':
      return `\n${show.style.bold(`${event.agent}:`)}\n${renderMarkdown(event.text, show.style)}`;
    case 'review_requested':
      return undefined; // the session prints the review when it asks for the answer
    case 'review_decided': {
      const d = event.review.decision;
      // Said with the card's own words: a proposal's reject is "search more", its typed query "use my query".
      const said = d ? meaning(event.review.request, d.action) : undefined;
      if (d?.rule)
        return d.rule.id === undefined
          ? `→ ${said} by the config file's rule "${d.rule.name}"`
          : `→ ${said} by rule #${d.rule.id} (proposed by ${d.rule.proposedBy}${d.rule.approvedBy?.length ? `, approved by ${d.rule.approvedBy.join(' and ')}` : ''})`;
      if (d?.automatic) return `→ ${said} automatically, nobody decided (${d.automatic})`;
      const how = d?.approvals
        ? ` (${d.approvals.length} approvals: ${d.approvals.map((a) => a.by).join(', ')})`
        : '';
      const edited = d?.action === 'edit' || (d?.action === 'approve' && event.review.request.edit);
      return `→ ${edited ? 'approved with edits' : said} by ${d?.by}${how}${d?.feedback ? `: ${d.feedback}` : ''}`;
    }
    case 'review_progress':
      // An edit resets the count to its editor's approval: the review now shows the edited call.
      return event.review.request.edit?.by === event.by && event.review.approvals.length === 1
        ? `→ edited and approved by ${event.by} (${approvalProgress(event.review)}); the others now approve the edited call`
        : `→ approved by ${event.by} (${approvalProgress(event.review)})`;
    case 'review_escalated':
      return `⏫ ${event.reason}: escalated to ${event.to.join(', ')}, now due ${due(event.review.dueAt)}.`;
    case 'review_reminder':
      return event.overdue
        ? `⏰ "${event.review.request.title}" is past its deadline and still waiting for a decision.${event.withheld ? ` ${event.withheld}` : ''}`
        : `⏰ Reminder: "${event.review.request.title}" is waiting for a decision${event.review.dueAt ? `, due ${due(event.review.dueAt)}` : ''}.`;
    case 'task_redirected':
      return `↪ Redirected by ${event.by}: the new goal is "${event.text}". Dropped: "${event.abandoned}". Starting over.`;
    case 'review_closed':
      return `→ review closed without a decision: ${event.reason} (by ${event.by})`;
    case 'task_status':
      // A working task says only which of its steps just started (its plan moved).
      if (event.status === 'working') return event.step ? show.style.dim(`▸ ${event.step}…`) : undefined;
      return `[${statusWithReason(event.status, event.reason, [': ', ''])}]`;
    case 'delivery_failed':
      return `(${eventInWords(event.failedType)} could not be shown (${event.code}); it is kept: ${CLI} events)`;
    case 'rule_changed':
      return ruleLine(event.rule, show.cli);
    case 'review_claimed': {
      const what = `"${event.review.request.title}"`;
      if (event.away) return `→ ${event.by} is away until ${event.away}: ${event.to} has ${what} now`;
      if (event.back) return `→ ${event.by} is back: ${event.to ?? 'nobody'} has ${what} now`;
      if (event.to === null) return `→ ${event.by} released ${what}`;
      return event.to === event.by
        ? `→ ${event.by} took ${what}`
        : `→ ${event.by} handed ${what} to ${event.to}`;
    }
  }
}

/** A standing rule's change, as the transcript says it. */
export function ruleLine(rule: AllowRule, cli = CLI): string {
  const what = `rule #${rule.id}: always allow ${scopeInWords(rule.scope)}`;
  const by = rule.approvals.map((a) => a.by).join(' and ');
  switch (rule.status) {
    case 'proposed':
      return rule.approvals.length
        ? `⚖ ${what}: approved by ${by} so far; it needs more (${cli} rules approve ${rule.id}).`
        : `⚖ ${rule.proposedBy} proposed ${what}. It applies once signed off (${cli} rules approve ${rule.id}).`;
    case 'active':
      return `⚖ ${what}: signed off by ${by}; it now approves what it covers${rule.expiresAt ? ` until ${rule.expiresAt}` : ''}.`;
    case 'refused':
      return `⚖ ${what}: refused by ${rule.decidedBy}.`;
    case 'revoked':
      return `⚖ ${what}: revoked by ${rule.revokedBy}; it approves nothing more.`;
  }
}

/**
 * An event as `signoff events` lists it: as the transcript shows it, and in full where the
 * transcript shows it otherwise (a review's card, printed with its prompt; the task starting to
 * work, which the transcript leaves to its "… is thinking" line). Never an empty entry.
 */
export function formatEventInFull(delivered: DeliveredEvent, show: Show = PLAIN): string {
  const event = delivered.event;
  if (event.type === 'review_requested') {
    const r = printableValues(event.review.request);
    return `Review: ${r.title}\n${renderMarkdown(r.body, show.style)}`;
  }
  return (
    formatEvent(delivered, show) ??
    `[${event.type === 'task_status' ? statusWords(event.status) : event.type}]`
  );
}

/**
 * The terminal reads its task's events from the database (whichever process ran the step), so
 * two terminals never show each other's tasks. The local sink only wakes the reader early.
 */
export function createFeed(deps: {
  events(taskId: string): Promise<DeliveredEvent[]>;
  out: Output;
  show?: Show;
  /** The agent thinking for a task in this process now, shown while it works (thinking.ts). */
  thinking?: (taskId: string) => string | undefined;
  /**
   * The model service's address for a task's failure sentences: only where this process ran
   * the task (its OPENAI_BASE_URL is the one that failed), else none (terminal.ts).
   */
  modelAt?: (taskId: string) => string | undefined;
  /** Whether a stream printed these saved words as they were written (live-words.ts): not printed again. */
  streamed?: (stream: string, text: string) => boolean;
  /** Whether the task's words print as written here (live-words.ts): its steps are not printed then. */
  speaks?: (taskId: string) => boolean;
}) {
  /** `text` about `taskId` for the person at the keyboard, its address named where it is known. */
  const inWords = (taskId: string, text: string) => atTheKeyboard(text, deps.modelAt?.(taskId));
  const waiters = new Set<() => void>();
  const shown = new Map<string, number>();
  /**
   * What each task's agents said before its latest review (the review leaves it out), started
   * afresh when they speak again after a review was printed.
   */
  const said = new Map<string, { texts: string[]; reviewed: boolean }>();
  /** The last status line (`[failed: …]`) printed for each task. */
  const lastStatus = new Map<string, { status: Task['status']; reason?: string }>();
  const sink: Sink = async () => {
    for (const wake of waiters) wake();
  };
  return {
    sink,
    /** Prints the task's events after the last one shown; `skipHistory` starts at the newest. */
    async pump(taskId: string, skipHistory = false): Promise<void> {
      const events = await deps.events(taskId);
      const after = shown.get(taskId) ?? (skipHistory ? (events.at(-1)?.id ?? 0) : 0);
      for (const event of events.filter((e) => e.id > after)) {
        const e0 = event.event;
        const printedLive =
          (e0.type === 'agent_said' && !!e0.streamed && !!deps.streamed?.(e0.streamed, e0.text)) ||
          (e0.type === 'task_status' && !!e0.step && !!deps.speaks?.(taskId));
        const line = printedLive ? undefined : formatEvent(event, deps.show);
        if (line !== undefined) {
          deps.out.write(`${inWords(taskId, line)}\n`);
          const e = event.event;
          if (e.type === 'task_status')
            lastStatus.set(taskId, { status: e.status, reason: e.reason ?? undefined });
        }
        if (event.event.type === 'agent_said') {
          const before = said.get(taskId);
          said.set(taskId, {
            texts: [...(before && !before.reviewed ? before.texts : []), event.event.text],
            reviewed: false,
          });
        }
      }
      shown.set(taskId, Math.max(after, events.at(-1)?.id ?? 0));
      const agent = deps.thinking?.(taskId);
      deps.out.status?.(agent ? `${agent} is thinking…` : undefined);
    },
    /** Whether the task has events not printed yet that would print a line (a reminder, say). */
    async unseen(taskId: string): Promise<boolean> {
      const after = shown.get(taskId) ?? 0;
      const events = await deps.events(taskId);
      return events.some((e) => e.id > after && formatEvent(e, deps.show) !== undefined);
    },
    inWords,
    /** Whether the last status line printed for `taskId` said `status` for `reason`: no need to say it again. */
    saidStatus: (taskId: string, status: Task['status'], reason: string | null | undefined) => {
      const last = lastStatus.get(taskId);
      return last?.status === status && (last.reason ?? null) === (reason ?? null);
    },
    /** The review of `taskId` as it is printed now: without what its agents just said. */
    review(taskId: string, review: Review): string {
      const before = said.get(taskId);
      if (before) before.reviewed = true;
      return inWords(taskId, formatReview(review, deps.show, before?.texts));
    },
    /** Resolves when this process delivers an event (true), or after `ms` (false). */
    wait: (ms: number) =>
      new Promise<boolean>((resolve) => {
        const done = (delivered: boolean) => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(delivered);
        };
        const wake = () => done(true);
        const timer = setTimeout(() => done(false), ms);
        waiters.add(wake);
      }),
  };
}

export type Feed = ReturnType<typeof createFeed>;
