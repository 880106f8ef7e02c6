/**
 * An Edit on a review that needs two approvals, through the engine: whatever the order in which an
 * approval and an edit of the same card arrive, no approval counts for content other than what the
 * review now shows; the quorum's approval runs the edited call; the audit says who edited.
 */
import { describe, expect, it } from 'vitest';
import { contentHash } from '../../src/workflows/protocol/content-hash.js';
import { harnessPerFile } from '../helpers/harness.js';

const t = harnessPerFile('tool_call_quorum', () => ({
  yaml: `alwaysAllow:
  reviewers: [U0ADMIN, U0CFO]
  approvals: 2
workflows:
  mail:
    module: ./test/fixtures/hitl-graph.ts
    checkpoints:
      tool_call: { reviewers: [U0BOB, U0CAT, U0DAN], approvals: 2 }
`,
}));

const edited = { to: 'ops@example.com', subject: 'Launch', body: 'We ship today.' };

describe('an edit towards a quorum', () => {
  it('raced by an approval of the old card: only approvals of what the review shows count; the quorum runs the edit', async () => {
    for (let round = 1; round <= 3; round++) {
      const task = await t.h.start('mail', `one ${round}`);
      const review = await t.h.nextReview(task.id);
      const seen = contentHash(review.request);
      const [approved, edit] = await Promise.allSettled([
        t.h.engine.decide({
          reviewId: review.id,
          actor: { id: 'U0CAT' },
          action: 'approve',
          contentHash: seen,
        }),
        t.h.engine.decide({
          reviewId: review.id,
          actor: { id: 'U0BOB' },
          action: 'edit',
          values: { args_0: JSON.stringify(edited) },
          contentHash: seen,
        }),
      ]);
      expect(edit.status).toBe('fulfilled');
      // Either refused as out of date (the edit came first) or counted and then set aside by it.
      if (approved.status === 'rejected') expect(approved.reason).toMatchObject({ code: 'stale_review' });
      const [now] = await t.h.engine.reviews(task.id, 'pending');
      expect(now?.request.edit?.by).toBe('U0BOB');
      expect(now?.approvals.map((a) => a.by)).toEqual(['U0BOB']);
      expect(now?.approvals.every((a) => a.contentHash === contentHash(now.request))).toBe(true);

      // The editor's approval is counted once; a stale approval of the first card is refused.
      await expect(
        t.h.engine.decide({
          reviewId: review.id,
          actor: { id: 'U0DAN' },
          action: 'approve',
          contentHash: seen,
        }),
      ).rejects.toMatchObject({ code: 'stale_review' });
      const done = await t.h.engine.decide({
        reviewId: review.id,
        actor: { id: 'U0DAN' },
        action: 'approve',
        contentHash: contentHash(now?.request as never),
      });
      expect(done).toMatchObject({ review: { status: 'decided' } });
      await t.h.waitFor(task.id, (x) => x.status === 'done');
      await t.h.shown(task.id);
      const said = t.h.delivered
        .filter((e) => e.taskId === task.id && e.event.type === 'agent_said')
        .map((e) => (e.event as { text: string }).text);
      expect(said).toContain(
        `RESUMED ${JSON.stringify({ decisions: [{ type: 'edit', editedAction: { name: 'send_email', args: edited } }] })}`,
      );

      const trail = [];
      for await (const entry of t.h.engine.auditTrail({ taskId: task.id })) trail.push(entry);
      // The audit keeps what the edit approved (its arguments, and the hash of the edited call).
      const editEntry = trail.find((e) => e.who === 'U0BOB');
      expect(editEntry).toMatchObject({
        action: 'edit',
        result: 'counted',
        approvals: '1 of 2',
        contentHash: contentHash(now?.request as never),
      });
      // Each call by its tool's name, with its arguments as the object they are (not `args_0`, nor
      // a string of JSON inside the JSON).
      expect(JSON.parse(editEntry?.edited as string)).toEqual([{ tool: 'send_email', args: edited }]);
      expect(trail.filter((e) => e.who === 'U0DAN').map((e) => e.result)).toEqual(['refused', 'decided']);
    }
  });

  it('"always allow" after an edit offers a rule for the calls as edited, the ones an approval now approves, and none for a call the edit rejected', async () => {
    const task = await t.h.start('mail', 'one rule after an edit');
    const review = await t.h.nextReview(task.id);
    const sent = { ...edited, to: 'board@example.com' };
    await t.h.engine.decide({
      reviewId: review.id,
      actor: { id: 'U0BOB' },
      action: 'edit',
      values: { args_0: JSON.stringify(sent) },
      contentHash: contentHash(review.request),
    });
    const [now] = await t.h.engine.reviews(task.id, 'pending');
    const scopes = t.h.engine.rules.scopes(now as never, task);
    expect(scopes.find((s) => s.kind === 'call')).toMatchObject({ tool: 'send_email', args: sent });
    await t.h.engine.cancel(task.id, { id: 'ann' });

    const two = await t.h.start('mail', 'two calls, one rejected');
    const both = await t.h.nextReview(two.id);
    await t.h.engine.decide({
      reviewId: both.id,
      actor: { id: 'U0BOB' },
      action: 'edit',
      values: {
        decision_0: 'approve',
        args_0: JSON.stringify({ to: 'team@example.com', subject: 'Launch', body: 'We ship today.' }),
        decision_1: 'reject',
      },
      contentHash: contentHash(both.request),
    });
    const [left] = await t.h.engine.reviews(two.id, 'pending');
    expect(t.h.engine.rules.scopes(left as never, two).map((s) => s.kind)).toEqual(['task', 'workflow']);
    // The audit names each call by its tool, the one the edit rejected too.
    const trail = [];
    for await (const entry of t.h.engine.auditTrail({ taskId: two.id })) trail.push(entry);
    expect(JSON.parse(trail.find((e) => e.action === 'edit')?.edited as string)).toEqual([
      { tool: 'send_email', args: { to: 'team@example.com', subject: 'Launch', body: 'We ship today.' } },
      { tool: 'log', rejected: true },
    ]);
    await t.h.engine.cancel(two.id, { id: 'ann' });
  });

  it("an edit that decides is audited with the arguments it approved; an approval's entry has none", async () => {
    const task = await t.h.start('mail', 'one edit decides');
    const review = await t.h.nextReview(task.id);
    const seen = contentHash(review.request);
    const sent = { ...edited, to: 'finance@example.com' };
    await t.h.engine.decide({
      reviewId: review.id,
      actor: { id: 'U0BOB' },
      action: 'edit',
      values: { args_0: JSON.stringify(sent) },
      contentHash: seen,
    });
    const [now] = await t.h.engine.reviews(task.id, 'pending');
    const cat = await t.h.engine.decide({
      reviewId: review.id,
      actor: { id: 'U0CAT' },
      action: 'approve',
      contentHash: contentHash(now?.request as never),
    });
    expect(cat).toMatchObject({ review: { status: 'decided' } });
    const trail = [];
    for await (const entry of t.h.engine.auditTrail({ taskId: task.id })) trail.push(entry);
    const byBob = trail.find((e) => e.who === 'U0BOB' && e.action === 'edit');
    expect(JSON.parse(byBob?.edited as string)).toEqual([{ tool: 'send_email', args: sent }]);
    expect(trail.find((e) => e.who === 'U0CAT')?.edited).toBeNull();
  });

  it("each edit's audit entry names the calls as its editor decided them on the review they saw, never as a later edit left them", async () => {
    const task = await t.h.start('mail', 'three calls, two editors');
    const review = await t.h.nextReview(task.id);
    const mail = (to: string) => ({ to, subject: 'Launch', body: 'We ship today.' });
    // The first two calls sent to `first` and `second`, the third rejected: every field typed.
    const editAs = async (who: string, first: string, second: string) => {
      const [now] = await t.h.engine.reviews(task.id, 'pending');
      await t.h.engine.decide({
        reviewId: review.id,
        actor: { id: who },
        action: 'edit',
        values: {
          decision_0: 'approve',
          args_0: JSON.stringify(mail(first)),
          decision_1: 'approve',
          args_1: JSON.stringify(mail(second)),
          decision_2: 'reject',
          args_2: JSON.stringify(mail('board@example.com')),
        },
        contentHash: contentHash(now?.request as never),
      });
    };
    await editAs('U0BOB', 'finance@example.com', 'press@example.com');
    await editAs('U0CAT', 'finance@example.com', 'cat@example.com');
    const trail: { who: string; action: string; edited: string | null }[] = [];
    for await (const entry of t.h.engine.auditTrail({ taskId: task.id })) trail.push(entry);
    const editOf = (who: string) =>
      JSON.parse(trail.find((e) => e.who === who && e.action === 'edit')?.edited as string);
    expect(editOf('U0BOB')).toEqual([
      { tool: 'send_email', args: mail('finance@example.com') },
      { tool: 'send_email', args: mail('press@example.com') },
      { tool: 'send_email', rejected: true },
    ]);
    // Cat saw Bob's edit of the first call, and changed the second.
    expect(editOf('U0CAT')).toEqual([
      { tool: 'send_email', args: mail('finance@example.com') },
      { tool: 'send_email', args: mail('cat@example.com') },
      { tool: 'send_email', rejected: true },
    ]);
    await t.h.engine.cancel(task.id, { id: 'ann' });
  });
});
