/**
 * Who approved, as an agent asking through a door reads it: the view's `decision.approvals` (the
 * API, its callbacks, MCP's structured result) and MCP's words. The decisions the doors' own tests
 * cannot reach quickly (a timer's, a rule's, a reject after an approval) are built here.
 */
import { describe, expect, it } from 'vitest';
import type { AskRow } from '../../src/api/ask-rows.js';
import { askView } from '../../src/api/ask-view.js';
import type { Decision, Review, Task } from '../../src/engine/index.js';
import { answerWords, waitingWords } from '../../src/mcp/words.js';

const AT = '2026-11-29T10:00:00.000Z';
const LATER = '2026-11-29T10:05:00.000Z';

const ask: AskRow = {
  id: '8d6f0c4e-1b2a-4c3d-9e8f-0a1b2c3d4e5f',
  client: 'deploy-bot',
  door: 'api',
  idempotencyKey: 'deploy-2.3',
  fingerprint: 'f',
  requestKey: 'k',
  channel: 'C0WORK',
  title: 'Ship 2.3',
  callbackUrl: null,
  createdAt: AT,
};

const task: Task = {
  id: 'slack-T1-C0WORK-1.2',
  workflow: 'ask',
  surface: 'slack',
  text: 'Ship 2.3',
  requester: 'api:deploy-bot',
  origin: { channel: 'C0WORK', ts: '1.2' },
  door: 'api',
  input: null,
  status: 'working',
  statusReason: null,
  generation: 0,
  abandonedGoals: [],
  progress: null,
  tokensIn: 0,
  tokensOut: 0,
  costUsd: 0,
  budgetUsd: null,
  createdAt: AT,
  updatedAt: AT,
};

/** The ask's review, decided as `decision` says, after `counted` approvals towards its quorum. */
const decided = (decision: Partial<Decision>, counted: Review['approvals'] = []): Review => ({
  id: 'r1',
  taskId: task.id,
  checkpoint: 'review',
  request: {
    kind: 'review',
    title: 'Ship 2.3',
    body: 'Changelog',
    actions: ['approve', 'revise', 'reject'],
    labels: {},
    round: 1,
    fields: [],
  },
  settings: {
    reviewers: ['U0BOB', 'U0CAT'],
    approvals: 2,
    allowSelfApproval: true,
    onTimeout: 'remind',
    allowSkip: false,
    dmReviewers: false,
    feedback: { minLength: 1, maxLength: 3000 },
  },
  status: 'decided',
  decision: { action: 'approve', values: {}, by: 'U0CAT', at: LATER, ...decision },
  decidedBy: decision.by ?? 'U0CAT',
  decidedAt: LATER,
  dueAt: null,
  createdAt: AT,
  approvals: counted,
  claimedBy: null,
  claimedAt: null,
});

const viewOf = (review: Review) => askView(ask, { taskId: task.id }, task, [review]);
const BOB = { by: 'U0BOB', at: AT, contentHash: 'h' };

describe('who approved, as the doors answer it', () => {
  it('a quorum lists every approval in order, a delegate’s with whom they stood in for, and the words name them all', () => {
    const view = viewOf(
      decided({
        by: 'U0EVE',
        approvals: [
          { by: 'U0BOB', at: AT },
          { by: 'U0EVE', at: LATER, for: 'U0CAT' },
        ],
      }),
    );
    expect(view.decision).toEqual({
      by: 'U0EVE',
      at: LATER,
      approvals: [
        { by: 'U0BOB', at: AT },
        { by: 'U0EVE', at: LATER, for: 'U0CAT' },
      ],
    });
    expect(answerWords(view)).toBe('Approved by U0BOB and U0EVE (for U0CAT) (2 approvals).');
  });

  it('a single approval is a list of one, said as before', () => {
    const view = viewOf(decided({ by: 'U0BOB', at: AT }));
    expect(view.decision?.approvals).toEqual([{ by: 'U0BOB', at: AT }]);
    expect(answerWords(view)).toBe('Approved by U0BOB.');
  });

  it('a timeout’s default approval lists nobody, even with an approval counted before it, and stays automatic', () => {
    const view = viewOf(decided({ by: 'system', automatic: 'no decision within 2h' }, [BOB]));
    expect(view.decision).toMatchObject({ automatic: 'no decision within 2h', approvals: [] });
    expect(answerWords(view)).toBe('Approved automatically (no decision within 2h).');
  });

  it('a rule’s approval lists nobody and stays automatic', () => {
    const view = viewOf(
      decided({ by: 'system', automatic: 'rule "small change"', rule: { name: 'small change' } }),
    );
    expect(view.decision).toMatchObject({ automatic: 'rule "small change"', approvals: [] });
  });

  it('a reject after one approval lists no approvals: the approval counted did not make the decision', () => {
    const view = viewOf(decided({ action: 'reject', by: 'U0CAT', feedback: 'Not today' }, [BOB]));
    expect(view.status).toBe('rejected');
    expect(view.decision).toMatchObject({ by: 'U0CAT', approvals: [] });
    expect(answerWords(view)).toBe('Rejected by U0CAT; do not go ahead.\nFeedback: Not today');
  });

  it('while pending, the view lists the approvals so far (a delegate’s with whom for), and the words name them and wait on the rest only', () => {
    const pending: Review = {
      ...decided({}),
      status: 'pending',
      decision: null,
      decidedBy: null,
      decidedAt: null,
      settings: { ...decided({}).settings, reviewers: ['U0BOB', 'U0CAT', 'U0DAN'], approvals: 3 },
      approvals: [BOB, { by: 'U0EVE', at: LATER, contentHash: 'h', for: 'U0CAT' }],
    };
    const view = viewOf(pending);
    expect(view).toMatchObject({ status: 'pending', reviewers: ['U0BOB', 'U0CAT', 'U0DAN'] });
    expect(view.approvals).toEqual({
      count: 2,
      needed: 3,
      given: [
        { by: 'U0BOB', at: AT },
        { by: 'U0EVE', at: LATER, for: 'U0CAT' },
      ],
    });
    expect(waitingWords(view)).toBe(
      'waiting for U0DAN; 2 of 3 approvals (U0BOB and U0EVE for U0CAT approved)',
    );
    expect(answerWords(view)).toMatch(/^Review \S+ is waiting for U0DAN; 2 of 3 approvals \(U0BOB and U0EVE/);
    // None yet: the words are as before, and the list is empty, not missing.
    const none = viewOf({ ...pending, approvals: [] });
    expect(none.approvals?.given).toEqual([]);
    expect(waitingWords(none)).toBe('waiting for U0BOB, U0CAT, U0DAN; 0 of 3 approvals');
  });
});
