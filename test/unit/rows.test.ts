import { describe, expect, it } from 'vitest';
import { reviewFromRow, taskFromRow } from '../../src/engine/rows.js';

/** A review row as `SELECT * FROM signoff.reviews` gives it. */
const reviewRow = (over: Record<string, unknown> = {}) => ({
  id: 'r1',
  task_id: 't1',
  checkpoint: 'review',
  request: { kind: 'review', title: 'Check this', body: 'the draft' },
  settings: {
    reviewers: ['anyone'],
    allowSelfApproval: true,
    onTimeout: 'remind',
    allowSkip: true,
    dmReviewers: false,
    feedback: { minLength: 1, maxLength: 3000 },
  },
  status: 'pending',
  decision: null,
  decided_by: null,
  decided_at: null,
  applied_at: null,
  due_at: null,
  created_at: new Date('2025-01-02T03:04:05.678Z'),
  approvals: [],
  ...over,
});

describe('rows are parsed when read', () => {
  it("a review row reads as a review: columns renamed, timestamps as ISO strings, the runner's own column left out", () => {
    const review = reviewFromRow(reviewRow({ due_at: '2025-01-02T04:04:05.678912+01:00' }));
    expect(review).toMatchObject({ id: 'r1', taskId: 't1', createdAt: '2025-01-02T03:04:05.678Z' });
    // Through to_jsonb a timestamp comes as a string with its zone: it reads the same as a Date would.
    expect(review.dueAt).toBe('2025-01-02T03:04:05.678Z');
    expect(review.request.actions).toEqual(['approve', 'revise', 'reject']);
    expect(review).not.toHaveProperty('appliedAt');
  });

  it('a review row whose settings do not fit is refused when read, naming the review and what does not fit', () => {
    const bad = reviewRow({ settings: { ...reviewRow().settings, onTimeout: 'shrug', reviewers: 'anyone' } });
    expect(() => reviewFromRow(bad)).toThrow(
      /The review r1 as stored does not read as a review: .*settings\.onTimeout/,
    );
    expect(() => reviewFromRow(bad)).toThrow(/settings\.reviewers/);
  });

  it('a decision recorded before its words were capped (a reason over 3,000 characters) still reads: the workflow refuses it and asks again', () => {
    const decision = {
      action: 'reject',
      feedback: 'x'.repeat(3500),
      values: {},
      by: 'U1',
      at: '2025-01-02T03:04:05.678Z',
    };
    expect(reviewFromRow(reviewRow({ status: 'decided', decision })).decision?.feedback).toHaveLength(3500);
  });

  it('a review row with a time that is not a time is refused, not read as a string', () => {
    expect(() => reviewFromRow(reviewRow({ decided_at: 'yesterday' }))).toThrow(
      /The review r1 as stored does not read as a review: decided_at is not a time \(yesterday\)/,
    );
  });

  it('a task row with a status the engine does not know is refused when read', () => {
    const row = {
      id: 't1',
      workflow: 'pair',
      surface: 'cli',
      text: 'write it',
      requester: 'U1',
      origin: {},
      status: 'paused',
      status_reason: null,
      version: 3,
      generation: 0,
      abandoned_goals: [],
      created_at: new Date(),
      updated_at: new Date(),
    };
    expect(() => taskFromRow(row)).toThrow(/The task t1 as stored does not read as a task: status/);
    expect(taskFromRow({ ...row, status: 'working' })).not.toHaveProperty('version');
  });
});
