/**
 * Seed 002's correctness properties, checked with generated revision sequences against the real
 * engine on Postgres: context preservation (2), approval completion (3), revision loop straight
 * back to the specialist with full context (4), unlimited iterations (6); plus optional HITL (5).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';
import { harnessPerFile, openHarness, recordingModels } from '../helpers/harness.js';

const models = recordingModels();
const t = harnessPerFile('specialist_props', () => ({ modelFor: models.modelFor }));

const feedbackArb = fc
  .string({ minLength: 1, maxLength: 60 })
  .map((s) => s.replace(/\s+/g, ' ').trim())
  .filter((s) => s.length > 0);
const taskArb = fc.constantFrom(
  'check the March invoices',
  'prepare the month-end closing',
  'audit the expense claims',
);

describe('specialist workflow (seed 002)', () => {
  it('properties 2, 3, 4 and 6 hold for any sequence of revisions', async () => {
    await fc.assert(
      fc.asyncProperty(
        taskArb,
        fc.array(feedbackArb, { maxLength: 6 }),
        fc.constantFrom('approve', 'reject'),
        async (text, feedbacks, ending) => {
          const from = models.calls.length;
          const { task } = await t.h.engine.start({
            workflow: 'specialist',
            text,
            requester: 'ann',
            surface: 'cli',
          });
          let review = await t.h.nextReview(task.id);
          for (const feedback of feedbacks) {
            await t.h.engine.decide({
              reviewId: review.id,
              actor: { id: 'bob' },
              action: 'revise',
              feedback,
            });
            review = await t.h.nextReview(task.id, review.id);
          }
          expect(review.request.round).toBe(feedbacks.length + 1);
          await t.h.engine.decide({
            reviewId: review.id,
            actor: { id: 'bob' },
            action: ending as 'approve' | 'reject',
          });
          const finished = await t.h.waitFor(task.id, (t) => t.status === 'done' || t.status === 'rejected');
          // Property 3: approval completes without looping (and reject ends too).
          expect(finished.status).toBe(ending === 'approve' ? 'done' : 'rejected');

          const calls = models.calls.slice(from);
          const planner = calls.filter((c) => c.agent === 'Planner');
          const specialist = calls.filter((c) => c.agent !== 'Planner');
          // Property 6: every revision is processed, without limit; the planner routes once.
          expect(planner).toHaveLength(1);
          expect(specialist).toHaveLength(feedbacks.length + 1);
          // Property 4: revisions go straight back to the same specialist, never via the planner.
          expect(calls[0]?.agent).toBe('Planner');
          expect(new Set(specialist.map((c) => c.agent)).size).toBe(1);
          specialist.forEach((call, i) => {
            const prompt = String(call.messages.at(-1)?.content);
            // Property 2: the original task is in every specialist prompt.
            expect(prompt).toContain(`Task: ${text}`);
            // Property 4: all feedback so far, in order, with the earlier results.
            const seen = [...prompt.matchAll(/Human feedback: (.*)/g)].map((m) => m[1]);
            expect(seen).toEqual(feedbacks.slice(0, i));
            expect(prompt.match(/specialist: /g)?.length ?? 0).toBe(i);
          });
        },
      ),
      { numRuns: 12 },
    );
  });

  it('property 5: with review switched off, the task completes with no review', async () => {
    // Its own database, so that no worker with review switched on takes the job.
    const own = await createTestDatabase('specialist_no_review');
    const off = await openHarness({ url: own.url, yaml: 'workflows:\n  specialist:\n    review: false\n' });
    try {
      const task = await off.start('specialist', 'close the books');
      const done = await off.waitFor(task.id, (t) => t.status !== 'working');
      expect(done.status).toBe('done');
      expect(await off.engine.reviews(task.id)).toHaveLength(0);
    } finally {
      await off.close();
      await own.drop();
    }
  });
});
