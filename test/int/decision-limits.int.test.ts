/**
 * The words a decision carries are capped whatever the action, through the engine on the real
 * Postgres: a reject's reason, an approval's words and an Edit's note get the checkpoint's
 * `feedback.maxLength` as a revise does, refused with a sentence saying the limit; and an answer
 * the workflow cannot read is asked again, never taken for an approval (`allowSkip` is on by
 * default here, as in every config that does not say otherwise).
 */
import { describe, expect, it } from 'vitest';
import { decideReview } from '../../src/engine/review-updates.js';
import { harnessPerFile } from '../helpers/harness.js';

const t = harnessPerFile('decision_limits', () => ({
  yaml: `workflows:
  pair:
    maxIterations: 1
  specialist:
    checkpoints:
      review: { feedback: { minLength: 3, maxLength: 200 } }
  mail:
    module: ./test/fixtures/hitl-graph.ts
    checkpoints:
      tool_call: { reviewers: [U0BOB, U0CAT], approvals: 2 }
`,
}));

const long = (n: number) => 'x'.repeat(n);

describe('words over the limit', () => {
  it('a reject with 3,500 characters of reason is refused with the limit, and the task is neither approved nor rejected', async () => {
    const task = await t.h.start('pair', 'name the launch');
    const review = await t.h.nextReview(task.id);
    await expect(
      t.h.engine.decide({
        reviewId: review.id,
        actor: { id: 'U0BOB' },
        action: 'reject',
        feedback: long(3500),
      }),
    ).rejects.toMatchObject({
      code: 'invalid_decision',
      message:
        'Nothing was recorded: your message is 3,500 characters, and this review takes at most 3,000. Shorten it and try again.',
    });
    expect((await t.h.engine.reviews(task.id, 'pending')).map((r) => r.id)).toEqual([review.id]);
    expect((await t.h.engine.getTask(task.id))?.status).toBe('waiting');

    await t.h.engine.decide({
      reviewId: review.id,
      actor: { id: 'U0BOB' },
      action: 'reject',
      feedback: 'not this name',
    });
    expect((await t.h.waitFor(task.id, (x) => x.status !== 'working')).status).toBe('rejected');
  });

  it("the checkpoint's feedback.maxLength holds for a reject's reason and an approval's words as for a revise", async () => {
    const task = await t.h.start('specialist', 'reconcile the invoices');
    const review = await t.h.nextReview(task.id);
    for (const action of ['reject', 'approve', 'revise'] as const) {
      await expect(
        t.h.engine.decide({ reviewId: review.id, actor: { id: 'U0BOB' }, action, feedback: long(250) }),
        action,
      ).rejects.toThrow('this review takes at most 200');
    }
    expect((await t.h.engine.getTask(task.id))?.status).toBe('waiting');
  });

  it("feedback under the checkpoint's feedback.minLength is refused saying the least it takes, not that it is empty", async () => {
    const task = await t.h.start('specialist', 'reconcile the receipts');
    const review = await t.h.nextReview(task.id);
    const revise = (feedback: string) =>
      t.h.engine.decide({ reviewId: review.id, actor: { id: 'U0BOB' }, action: 'revise', feedback });
    await expect(revise('ab')).rejects.toThrow(
      'Nothing was recorded: your message is 2 characters, and this review takes at least 3. Say more and try again.',
    );
    await expect(revise('  ')).rejects.toThrow('Say what should change: the feedback is empty.');
    expect((await t.h.engine.getTask(task.id))?.status).toBe('waiting');
  });

  it("an Edit's note over the limit towards a quorum is refused with the limit, and the review is unchanged", async () => {
    const task = await t.h.start('mail', 'two calls');
    const review = await t.h.nextReview(task.id);
    await expect(
      t.h.engine.decide({
        reviewId: review.id,
        actor: { id: 'U0BOB' },
        action: 'edit',
        values: {
          decision_0: 'approve',
          args_0: JSON.stringify({ to: 'ops@example.com', subject: 'Launch', body: 'We ship today.' }),
          decision_1: 'reject',
        },
        feedback: long(3100),
      }),
    ).rejects.toMatchObject({
      code: 'invalid_decision',
      message: expect.stringContaining('this review takes at most 3,000'),
    });
    const [still] = await t.h.engine.reviews(task.id, 'pending');
    expect(still?.request.edit).toBeUndefined();
    expect(still?.approvals).toEqual([]);
  });
});

describe('an answer the workflow cannot read', () => {
  it('a reject recorded with a reason longer than a decision holds (as earlier versions accepted) is asked again, not approved', async () => {
    const task = await t.h.start('pair', 'name the codename');
    const review = await t.h.nextReview(task.id);
    // Recorded as the engine records a decision, without today's check: what a deploy finds in
    // the database from before it.
    const decided = await decideReview(t.h.db.pool, review.id, {
      action: 'reject',
      feedback: long(3500),
      values: {},
      by: 'U0BOB',
      at: new Date().toISOString(),
    });
    expect(decided?.status).toBe('decided');
    await t.h.runAndSettle(task);
    expect((await t.h.waitFor(task.id, (x) => x.status !== 'working')).status).toBe('waiting');
    const again = await t.h.nextReview(task.id, review.id);
    expect(again.request.title).toBe(review.request.title);
    expect((await t.h.engine.getTask(task.id))?.status).toBe('waiting');
  });
});
