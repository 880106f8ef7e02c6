import { describe, expect, it } from 'vitest';
import { checkpointBytes } from '../../src/engine/prune.js';
import { SignoffError } from '../../src/errors.js';
import { harnessPerFile, recordingModels, settled } from '../helpers/harness.js';

const models = recordingModels();
const t = harnessPerFile('engine', () => ({ modelFor: models.modelFor }));
const slowModels = recordingModels({ delayMs: 600 });
const slow = harnessPerFile('engine-slow', () => ({ modelFor: slowModels.modelFor }));

const textOf = (e: { event: unknown } | undefined) => (e?.event as { text?: string } | undefined)?.text ?? '';
const saidIn = (taskId: string) =>
  t.h.delivered.filter((e) => e.taskId === taskId && e.event.type === 'agent_said');

describe('pair workflow through the engine', () => {
  it("a slow model's words are shown as each step finishes, while the run goes on", async () => {
    const task = await slow.h.start('pair', 'outline the migration');
    const shown = () => slow.h.delivered.filter((e) => e.taskId === task.id && e.event.type === 'agent_said');
    const deadline = Date.now() + 10_000;
    while (shown().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    // The first agent's words are out while the next agents are still being asked.
    expect(shown()).toHaveLength(1);
    expect(slowModels.calls.length).toBeLessThan(3);
    expect((await slow.h.engine.getTask(task.id))?.status).toBe('working');
    await slow.h.nextReview(task.id);
    expect(shown()).toHaveLength(3);
  });

  it('runs three turns, waits, loops on feedback with the whole history, and ends on approve', async () => {
    const task = await t.h.start('pair', 'draft a refund policy');
    await t.h.waitFor(task.id, settled);
    expect((await t.h.engine.getTask(task.id))?.status).toBe('waiting');
    // The review shown means the words before it were shown too.
    const review = await t.h.nextReview(task.id);
    expect(saidIn(task.id)).toHaveLength(3);
    expect(review.request.round).toBe(1);

    await t.h.engine.decide({
      reviewId: review.id,
      actor: { id: 'bob' },
      action: 'revise',
      feedback: 'cover digital goods',
    });
    const second = await t.h.nextReview(task.id, review.id);
    const said = saidIn(task.id);
    expect(said).toHaveLength(6);
    // The first turn of cycle 2 saw the whole history: the task, the 3 turns and the feedback.
    expect(textOf(said[3])).toContain('cover digital goods');
    const asked = models.calls.find((c) =>
      c.messages.some((m) => String(m.content).includes('cover digital goods')),
    );
    const seen = asked?.messages.map((m) => String(m.content)).join('\n') ?? '';
    for (const words of ['draft a refund policy', ...said.slice(0, 3).map(textOf), 'cover digital goods'])
      expect(seen).toContain(words);

    expect(second.request.round).toBe(2);
    await t.h.engine.decide({ reviewId: second.id, actor: { id: 'bob' }, action: 'approve' });
    const done = await t.h.waitFor(task.id, (t) => t.status !== 'working' && t.status !== 'waiting');
    expect(done.status).toBe('done');
    await t.h.shown(task.id);
    const types = t.h.delivered.filter((e) => e.taskId === task.id).map((e) => e.event.type);
    expect(types[0]).toBe('task_started');
    expect(types.filter((t) => t === 'review_decided')).toHaveLength(2);
    expect(new Set(t.h.delivered.map((e) => e.id)).size).toBe(t.h.delivered.length);
  });

  it('refuses a stale decision instead of applying it to the next question', async () => {
    const task = await t.h.start('pair', 'name the product');
    const first = await t.h.nextReview(task.id);
    await t.h.engine.decide({
      reviewId: first.id,
      actor: { id: 'ann' },
      action: 'revise',
      feedback: 'shorter',
    });
    await t.h.nextReview(task.id, first.id);
    await expect(
      t.h.engine.decide({ reviewId: first.id, actor: { id: 'ann' }, action: 'approve' }),
    ).rejects.toMatchObject({
      code: 'review_not_pending',
      message: expect.stringContaining('already decided (revise) by ann'),
    });
  });

  it('refuses unknown reviews, reviews of another task, empty feedback and actions not offered', async () => {
    const task = await t.h.start('pair', 'plan the offsite');
    const review = await t.h.nextReview(task.id);
    // Refused as every command refuses: a SignoffError with its code and sentence.
    const unknown = t.h.engine.decide({ reviewId: 'nope', actor: { id: 'a' }, action: 'approve' });
    await expect(unknown).rejects.toBeInstanceOf(SignoffError);
    await expect(unknown).rejects.toMatchObject({ code: 'unknown_review' });
    await expect(
      t.h.engine.decide({
        reviewId: review.id,
        taskId: 'cli-other',
        actor: { id: 'a' },
        action: 'approve',
      }),
    ).rejects.toMatchObject({ code: 'unknown_review' });
    await expect(
      t.h.engine.decide({ reviewId: review.id, actor: { id: 'a' }, action: 'revise', feedback: '   ' }),
    ).rejects.toMatchObject({ code: 'invalid_decision' });
    expect((await t.h.engine.reviews(task.id, 'pending')).map((r) => r.id)).toEqual([review.id]);
  });

  it('keeps one checkpoint per thread after each run', async () => {
    const task = await t.h.start('pair', 'write release notes');
    await t.h.waitFor(task.id, settled);
    const r = await t.h.db.pool.query(
      'SELECT count(*)::int AS n FROM langgraph.checkpoints WHERE thread_id = $1',
      [task.id],
    );
    expect(r.rows[0].n).toBe(1);
    expect(await checkpointBytes(t.h.db.pool, task.id)).toBeGreaterThan(0);
  });
});

describe('exactly-once decisions', () => {
  it('50 concurrent decisions on one review: one wins, one resume, no forked history', async () => {
    const task = await t.h.start('pair', 'summarise the board minutes');
    const review = await t.h.nextReview(task.id);
    const before = models.calls.length;
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        t.h.engine.decide({
          reviewId: review.id,
          actor: { id: `U${i}` },
          action: 'revise',
          feedback: `feedback from ${i}`,
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(
      results.filter((r) => r.status === 'rejected' && r.reason.code === 'review_not_pending'),
    ).toHaveLength(49);
    await t.h.nextReview(task.id, review.id);
    expect(await t.h.engine.reviews(task.id, 'pending')).toHaveLength(1);
    // Exactly one more cycle ran: three model calls, one feedback in the history.
    expect(models.calls.length - before).toBe(3);
    const last = models.calls.at(-1)?.messages.map((m) => String(m.content)) ?? [];
    expect(last.filter((c) => c.startsWith('Feedback:'))).toHaveLength(1);
    const audit = await t.h.db.pool.query(
      `SELECT action, count(*)::int AS n FROM signoff.audit WHERE review_id = $1 GROUP BY action`,
      [review.id],
    );
    expect(Object.fromEntries(audit.rows.map((r) => [r.action, r.n]))).toEqual({
      revise: 1,
      'refused:revise': 49,
    });
  });

  it("two asks for one task's run at once run the graph once (one holder per job key)", async () => {
    const task = await t.h.start('pair', 'compare two vendors');
    const review = await t.h.nextReview(task.id);
    // Record the decision without a job, then ask for its run twice at once, as two processes
    // would after a duplicated kick.
    await t.h.db.pool.query(
      `UPDATE signoff.reviews SET status = 'decided', decision = $2, decided_by = 'ann', decided_at = now() WHERE id = $1`,
      [
        review.id,
        { action: 'revise', feedback: 'add prices', values: {}, by: 'ann', at: new Date().toISOString() },
      ],
    );
    const before = models.calls.length;
    await t.h.runAndSettle(task, 2);
    expect(models.calls.length - before).toBe(3);
    expect(await t.h.engine.reviews(task.id, 'pending')).toHaveLength(1);
    // Once the next review is shown, the words before it in the thread have been too.
    await t.h.nextReview(task.id, review.id);
    expect(saidIn(task.id)).toHaveLength(6);
  });

  it('a decision the graph consumed before a crash hid it is not resumed again', async () => {
    const task = await t.h.start('pair', 'list the risks');
    const first = await t.h.nextReview(task.id);
    await t.h.engine.decide({
      reviewId: first.id,
      actor: { id: 'ann' },
      action: 'revise',
      feedback: 'add two',
    });
    const second = await t.h.nextReview(task.id, first.id);
    // As if the run had crashed after the graph took the decision but before it was marked.
    await t.h.db.pool.query('UPDATE signoff.reviews SET applied_at = NULL WHERE id = $1', [first.id]);
    const said = saidIn(task.id).length;
    const calls = models.calls.length;
    await t.h.runAndSettle(task);
    expect(models.calls.length).toBe(calls);
    expect(saidIn(task.id)).toHaveLength(said);
    expect((await t.h.engine.reviews(task.id, 'pending')).map((r) => r.id)).toEqual([second.id]);
    const { rows } = await t.h.db.pool.query('SELECT applied_at FROM signoff.reviews WHERE id = $1', [
      first.id,
    ]);
    expect(rows[0].applied_at).not.toBeNull();
    expect((await t.h.engine.getTask(task.id))?.status).toBe('waiting');
  });
});
