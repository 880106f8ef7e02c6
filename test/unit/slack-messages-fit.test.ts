/**
 * Every message and view signoff sends, at its fullest, is one Slack takes (issue 19, item 6):
 * checked by the fake's own rules (Block Kit per block, confirm dialogs in plain_text, the text
 * across a message's blocks, chat.update's shorter text, views' limits). Each builder gets the
 * longest input it can be given, with the characters that grow when escaped.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/engine/audit-trail.js';
import type { Review, Task, TaskStatus } from '../../src/engine/types.js';
import { historyModal } from '../../src/slack/blocks/history.js';
import { agentMessages, redirectedMessage, rootMessage, STATUS } from '../../src/slack/blocks/messages.js';
import { reviseModal, startModal } from '../../src/slack/blocks/modals.js';
import { channelOverview, homeView } from '../../src/slack/blocks/overview.js';
import { replyQuestion } from '../../src/slack/blocks/reply-question.js';
import { decidedCard, reviewCard, reviewTextMessages } from '../../src/slack/blocks/review-card.js';
import { escalatedMessage, reminderMessage } from '../../src/slack/blocks/review-pings.js';
import { blockTextRoom, LIMITS } from '../../src/slack/blocks/text.js';
import { blockWeight, slackRefusal, viewRefusal } from '../helpers/fake-slack.js';

/** Text that escaping makes longest (`&` → `&amp;`), with a line break and an emoji in it. */
const worst = (n: number) => '&<> 🚀\n'.repeat(Math.ceil(n / 7)).slice(0, n);
const many = (prefix: string) =>
  Array.from({ length: 60 }, (_, i) => `${prefix}${String(i).padStart(6, '0')}`);

const task = (over: Partial<Task> = {}): Task => ({
  id: 'slack-T0TEAM-C0WORK-1700000001.000100',
  workflow: 'w'.repeat(64),
  surface: 'slack',
  text: worst(3000),
  requester: 'U0ANN',
  origin: { team: 'T0TEAM', channel: 'C0WORK', ts: '1700000001.000100' },
  door: null,
  input: null,
  status: 'waiting',
  statusReason: null,
  generation: 0,
  abandonedGoals: [],
  progress: null,
  tokensIn: 123_456_789,
  tokensOut: 98_765_432,
  costUsd: 123_456.789,
  budgetUsd: 999_999,
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
  ...over,
});

const review = (): Review => ({
  id: 'r'.repeat(32),
  taskId: task().id,
  checkpoint: 'review',
  request: {
    kind: 'review',
    title: worst(150),
    body: worst(30_000),
    actions: ['approve', 'revise', 'reject'],
    labels: { approve: 'A'.repeat(30), revise: 'V'.repeat(30), reject: 'R'.repeat(30) },
    round: 99,
    fields: [],
  },
  settings: {
    reviewers: many('U0'),
    notify: many('U1'),
    approvals: 3,
    allowSelfApproval: false,
    onTimeout: 'reject',
    allowSkip: false,
    dmReviewers: true,
    feedback: { minLength: 1, maxLength: 3000 },
  },
  status: 'pending',
  decision: null,
  decidedBy: null,
  decidedAt: null,
  dueAt: '2026-11-23T10:00:00.000Z',
  createdAt: '2026-11-22T10:00:00.000Z',
  claimedBy: null,
  claimedAt: null,
  approvals: many('U2')
    .slice(0, 2)
    .map((by) => ({ by, at: '2026-11-22T10:30:00.000Z', contentHash: 'h' })),
});

const decided = (): Review => ({
  ...review(),
  status: 'decided',
  decision: {
    action: 'revise',
    feedback: worst(3000),
    values: {},
    by: 'U0BOB',
    at: '2026-11-22T11:00:00.000Z',
  },
});

/** A message posted (chat.postMessage) and, where signoff edits it later, updated (chat.update). */
const posted = (m: { text: string; blocks: unknown[] }) => slackRefusal({ ...m });
const updated = (m: { text: string; blocks: unknown[] }) => slackRefusal({ ...m }, 'chat.update');

describe('every message signoff sends fits what Slack takes', () => {
  it('the root message, in every status, with the longest task, workflow and reason: posted and updated', () => {
    for (const status of Object.keys(STATUS) as TaskStatus[]) {
      const m = rootMessage(task(), status, worst(2000));
      expect([status, posted(m), updated(m)]).toEqual([status, undefined, undefined]);
    }
    expect(updated(rootMessage(task(), 'failed', worst(2000), { controls: false }))).toBeUndefined();
  });

  it('buttons that ask first (Stop, Cancel task, Reject) have confirm dialogs in plain_text within their lengths', () => {
    const root = rootMessage(task(), 'working');
    const waiting = rootMessage(task(), 'waiting');
    const confirms = JSON.stringify([root, waiting, reviewCard(review(), 'U0ANN')]).match(
      /"confirm":\{"title"/g,
    );
    expect(confirms).toHaveLength(3);
    expect(JSON.stringify(root)).toContain('"text":"Stop"');
    expect(JSON.stringify(waiting)).toContain('"text":"Cancel task"');
    expect(posted(root)).toBeUndefined();
    expect(posted(waiting)).toBeUndefined();
    expect(posted(reviewCard(review(), 'U0ANN'))).toBeUndefined();
  });

  it('the root message with the fullest plan (sixty steps with the longest titles, one waiting, one stopped), in every status', () => {
    const statuses = ['complete', 'in_progress', 'error', 'pending'] as const;
    const progress: Task['progress'] = {
      generation: 0,
      steps: Array.from({ length: 60 }, (_, i) => ({
        node: `n${i}`,
        title: worst(400),
        status: statuses[i % 4] ?? 'pending',
        ...(i === 1 ? { waiting: true } : {}),
        ...(i === 2 ? { stoppedBy: 'U0BOB' } : {}),
      })),
    };
    for (const status of Object.keys(STATUS) as TaskStatus[]) {
      const m = rootMessage(task({ progress }), status, worst(2000));
      expect([status, posted(m), updated(m)]).toEqual([status, undefined, undefined]);
      expect(JSON.stringify(m.blocks)).toContain('"type":"plan"');
    }
  });

  it("an agent's longest answer, a redirect, a reminder and an escalation naming sixty people", () => {
    for (const m of agentMessages(worst(60_000))) expect(posted(m)).toBeUndefined();
    expect(
      posted(redirectedMessage({ text: worst(5000), by: 'U0BOB', abandoned: worst(5000) })),
    ).toBeUndefined();
    expect(posted(reminderMessage(review(), 'U0ANN', true))).toBeUndefined();
    expect(
      posted(escalatedMessage({ review: review(), to: many('U3'), reason: worst(500) }, 'U0ANN', many('U3'))),
    ).toBeUndefined();
  });

  it('a card at its fullest, posted, redrawn and decided (chat.update takes a shorter text than a post)', () => {
    for (const m of [reviewCard(review(), 'U0ANN'), ...reviewTextMessages(review())])
      expect(posted(m)).toBeUndefined();
    expect(updated(reviewCard(review(), 'U0ANN'))).toBeUndefined();
    expect(updated(reviewCard(review(), 'U0ANN', { code: 'msg_blocks_too_long' }))).toBeUndefined();
    expect(updated(decidedCard(decided(), 'U0ANN'))).toBeUndefined();
    // Within signoff's own budget too, each block's container counted (a margin under Slack's).
    for (const m of [
      reviewCard(review(), 'U0ANN'),
      decidedCard(decided(), 'U0ANN'),
      ...reviewTextMessages(review()),
    ])
      expect(blockWeight(m.blocks)).toBeLessThanOrEqual(LIMITS.blockTextPerMessage);
    expect(
      updated(decidedCard(review(), 'U0ANN', { by: 'U0BOB', reason: worst(2000) }, { code: 'x' })),
    ).toBeUndefined();
  });

  it('text across many blocks: 45 blocks filled to blockTextRoom(45) are taken; filled to the flat 11,000 characters, Slack refuses them (msg_blocks_too_long)', () => {
    const filled = (blocks: number, total: number) => {
      const each = Math.floor(total / blocks);
      return {
        text: 'many blocks',
        // Sections within their 3,000 characters; one or two blocks need markdown's room.
        blocks: Array.from({ length: blocks }, () =>
          each > LIMITS.sectionText
            ? { type: 'markdown', text: 'x'.repeat(each) }
            : { type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(each) } },
        ),
      };
    };
    expect(blockTextRoom(45)).toBeLessThan(LIMITS.blockTextPerMessage - 2000);
    expect(posted(filled(45, blockTextRoom(45)))).toBeUndefined();
    expect(posted(filled(45, LIMITS.blockTextPerMessage))).toBe('msg_blocks_too_long');
    // A few blocks still take the whole budget; the product's budget keeps under Slack's at every count.
    expect(posted(filled(3, blockTextRoom(3)))).toBeUndefined();
    for (const n of [1, 5, 20, 45, 50]) expect(posted(filled(n, blockTextRoom(n)))).toBeUndefined();
  });

  it("a reply's private question about the longest reply", () => {
    const m = replyQuestion(review(), { ts: '1700000002.000100', text: worst(40_000) }, [
      'revise',
      'approve',
      'reject',
    ]);
    expect(posted(m)).toBeUndefined();
  });

  it('the Home tab and /signoff list with every entry at its longest, and the History modal with 300 entries', () => {
    const tasks = Array.from({ length: 20 }, (_, i) => task({ id: `t${i}`, text: worst(3000) }));
    const links = new Map(
      tasks.map((t) => [t.id, `https://acme.enterprise.slack.com/archives/C0WORK/p${'9'.repeat(16)}`]),
    );
    const items = tasks.map((t) => ({ review: review(), task: t }));
    const forYou = { items, total: 10_000, more: 9_980, uncheckedGroups: [] };
    const pace = Array.from({ length: 30 }, (_, i) => ({
      workflow: `${'w'.repeat(60)}${i}`,
      waiting: 999,
      decisions: 999,
      medianSeconds: 123_456,
    }));
    expect(viewRefusal(homeView(forYou, tasks, pace, links, 'r1'))).toBeUndefined();
    // Standing rules while the config file sets no alwaysAllow: listed, and said to apply nothing.
    const rule = {
      id: 4,
      status: 'active' as const,
      scope: { kind: 'workflow' as const, workflow: 'pair', checkpoint: 'review', channel: 'C0WORK' },
      taskId: 't0',
      reviewId: 'r0',
      proposedBy: 'U0ALI',
      proposedAt: '2026-11-28T09:00:00Z',
      approvals: [{ by: 'U0BOB', at: '2026-11-28T09:01:00Z', contentHash: '' }],
      decidedBy: 'U0BOB',
      decidedAt: '2026-11-28T09:01:00Z',
      expiresAt: null,
      revokedBy: null,
      revokedAt: null,
      applied: 3,
    };
    const off = homeView(forYou, tasks, pace, links, 'r1', undefined, { rules: [rule], off: true });
    expect(viewRefusal(off)).toBeUndefined();
    expect(JSON.stringify(off)).toContain(
      '`alwaysAllow` is not set: these rules approve nothing until it is.',
    );
    expect(
      JSON.stringify(homeView(forYou, [], [], links, undefined, undefined, { rules: [rule], off: false })),
    ).not.toContain('is not set');
    expect(
      posted({ text: channelOverview(tasks, forYou, new Set(tasks.map((t) => t.id)), links), blocks: [] }),
    ).toBeUndefined();
    const entry = (i: number): AuditEntry => ({
      id: i,
      at: '2026-11-22T10:00:00.000Z',
      task: tasks[0]?.id ?? null,
      workflow: 'pair',
      checkpoint: 'c'.repeat(40),
      round: 9,
      review: 'r1',
      who: 'U0BOB',
      action: 'revise',
      result: 'decided',
      feedback: worst(3000),
      contentHash: 'f'.repeat(16),
      reason: null,
      code: null,
      rule: worst(300),
      to: many('U4').join(' '),
      approvals: '2 of 3',
      edited: JSON.stringify({ args_0: worst(3000) }),
    });
    const entries = Array.from({ length: 400 }, (_, i) => entry(i));
    expect(viewRefusal(historyModal(task(), entries))).toBeUndefined();
  });

  it('the start form and the revise form', () => {
    const workflows = Array.from({ length: 120 }, (_, i) => ({
      name: `${'n'.repeat(80)}${i}`,
      description: worst(500),
    }));
    expect(
      viewRefusal(startModal(workflows, 'C0WORK', `https://hooks.slack.com/commands/${'x'.repeat(200)}`)),
    ).toBeUndefined();
    // The longest metadata a click can give it, a response URL carried along included.
    const meta = {
      value: { review: 'r'.repeat(100), task: 't'.repeat(300), h: 'h'.repeat(64) },
      action: 'revise' as const,
      channel: 'C'.repeat(40),
      messageTs: '1'.repeat(40),
      threadTs: '1'.repeat(40),
      responseUrl: `https://hooks.slack.com/actions/${'x'.repeat(960)}`,
    };
    expect(viewRefusal(reviseModal(meta, worst(5000), 3000))).toBeUndefined();
  });
});
