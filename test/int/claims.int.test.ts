/**
 * Claim and hand-off on a real database: "I'll take it" (reminders then name the claimer), an
 * exclusive checkpoint where only the claimer decides, handing over to someone who may decide
 * (and not to someone who may not), release, and away: a person's reviews, and those opened while
 * they are away, go to their delegate, who decides beside them. All in the audit.
 */
import { describe, expect, it } from 'vitest';
import { withAwayDelegates } from '../../src/engine/away.js';
import { insertReview } from '../../src/engine/review-rows.js';
import { harnessPerFile } from '../helpers/harness.js';
import { until } from '../helpers/slack-thread.js';

const YAML = `workflows:
  ask:
    checkpoints:
      review: { reviewers: [U0ANN, U0BOB, U0CAT], exclusiveClaims: true }
  pair:
    maxIterations: 1
    checkpoints:
      review: { reviewers: [U0ANN, U0BOB] }
  specialist:
    checkpoints:
      review: { reviewers: [U0REQ, U0ANN, U0BOB, U0CAT], approvals: 3, allowSelfApproval: false }
`;

const t = harnessPerFile('claims', () => ({ yaml: YAML }));
const ask = (title: string) =>
  t.h.engine
    .start({
      workflow: 'ask',
      text: title,
      requester: 'U0REQ',
      surface: 'cli',
      input: { title, content: 'Please check.' },
    })
    .then((r) => r.task);

describe('claim and hand-off', () => {
  it('claimed on an exclusive checkpoint: only the claimer decides; handed over, the new one does; each change audited', async () => {
    const task = await ask('Renew the lease');
    const review = await t.h.nextReview(task.id);
    const claimed = await t.h.engine.claims.claim(review.id, { id: 'U0BOB' });
    expect(claimed.claimedBy).toBe('U0BOB');
    await expect(
      t.h.engine.decide({ reviewId: review.id, actor: { id: 'U0ANN' }, action: 'approve' }),
    ).rejects.toMatchObject({
      code: 'not_allowed',
      message: expect.stringMatching(/<@U0BOB> has claimed this review/),
    });
    // Not to someone who may not decide it.
    await expect(t.h.engine.claims.claim(review.id, { id: 'U0BOB' }, { id: 'U0EVE' })).rejects.toMatchObject({
      message: '<@U0EVE> may not decide this review, so it cannot be handed to them.',
    });
    // Nor by someone who may not decide it.
    await expect(t.h.engine.claims.claim(review.id, { id: 'U0EVE' })).rejects.toMatchObject({
      code: 'not_allowed',
    });
    expect((await t.h.engine.claims.claim(review.id, { id: 'U0BOB' }, { id: 'U0CAT' })).claimedBy).toBe(
      'U0CAT',
    );
    await expect(
      t.h.engine.decide({ reviewId: review.id, actor: { id: 'U0BOB' }, action: 'approve' }),
    ).rejects.toMatchObject({ code: 'not_allowed' });
    expect((await t.h.engine.claims.release(review.id, { id: 'U0CAT' })).claimedBy).toBeNull();
    await t.h.engine.decide({ reviewId: review.id, actor: { id: 'U0ANN' }, action: 'approve' });
    expect((await t.h.waitFor(task.id, (x) => x.status === 'done')).status).toBe('done');
    const events = (await t.h.engine.events(task.id)).filter((e) => e.event.type === 'review_claimed');
    expect(events.map((e) => e.event.type === 'review_claimed' && [e.event.by, e.event.to])).toEqual([
      ['U0BOB', 'U0BOB'],
      ['U0BOB', 'U0CAT'],
      ['U0CAT', null],
    ]);
    const audit = await t.h.db.pool.query<{ actor: string; action: string }>(
      `SELECT actor, action FROM signoff.audit WHERE review_id = $1 ORDER BY id`,
      [review.id],
    );
    expect(audit.rows.map((r) => `${r.action} ${r.actor}`)).toEqual([
      'claim U0BOB',
      'refused:approve U0ANN',
      'refused:hand_over U0BOB',
      'refused:claim U0EVE',
      'hand_over U0BOB',
      'refused:approve U0BOB',
      'release U0CAT',
      'approve U0ANN',
    ]);
  });

  it('away: a named reviewer’s waiting review and the next one opened go to the delegate, who decides; back, new ones are theirs again', async () => {
    const first = await t.h.start('pair', 'draft the memo');
    const waiting = await t.h.nextReview(first.id);
    await t.h.engine.claims.claim(waiting.id, { id: 'U0ANN' });
    const back = new Date(Date.now() + 3 * 86_400_000);
    expect(await t.h.engine.claims.away('U0ANN', back, 'U0DAN')).toEqual({ handedOver: 1 });
    const [handed] = await t.h.engine.reviews(first.id, 'pending');
    expect(handed).toMatchObject({ claimedBy: 'U0DAN', settings: { delegates: { U0ANN: 'U0DAN' } } });
    // Dan decides in Ann's place, not as a reviewer of his own.
    expect(handed?.settings.reviewers).toEqual(['U0ANN', 'U0BOB']);
    await t.h.engine.decide({ reviewId: waiting.id, actor: { id: 'U0DAN' }, action: 'approve' });

    const second = await t.h.start('pair', 'draft the letter');
    const opened = await t.h.nextReview(second.id);
    expect(opened.settings).toMatchObject({ reviewers: ['U0ANN', 'U0BOB'], delegates: { U0ANN: 'U0DAN' } });

    // Dan takes it, as Ann's stand-in (he is no reviewer of his own).
    expect((await t.h.engine.claims.claim(opened.id, { id: 'U0DAN' })).claimedBy).toBe('U0DAN');

    expect(await t.h.engine.claims.away('U0ANN', null)).toEqual({ handedOver: 1 });
    // Back: Dan no longer decides in Ann's place on the review handed over while she was away,
    // and what he had in hand only as her stand-in is hers again (none could decide it else).
    const returned = await t.h.nextReview(second.id);
    expect(returned.settings.delegates).toEqual({});
    expect(returned.claimedBy).toBe('U0ANN');
    const events = (await t.h.engine.events(second.id)).flatMap((e) =>
      e.event.type === 'review_claimed' ? [[e.event.by, e.event.to, e.event.back ?? false]] : [],
    );
    expect(events.at(-1)).toEqual(['U0ANN', 'U0ANN', true]);
    const audit = await t.h.db.pool.query<{ action: string }>(
      'SELECT action FROM signoff.audit WHERE review_id = $1 ORDER BY id',
      [opened.id],
    );
    expect(audit.rows.map((r) => r.action)).toEqual(['claim', 'back']);
    await expect(
      t.h.engine.decide({ reviewId: opened.id, actor: { id: 'U0DAN' }, action: 'approve' }),
    ).rejects.toMatchObject({ code: 'not_allowed' });
    const third = await t.h.start('pair', 'draft the note');
    expect((await t.h.nextReview(third.id)).settings.delegates).toBeUndefined();
    await expect(t.h.engine.claims.away('U0ANN', new Date(Date.now() - 1000), 'U0DAN')).rejects.toMatchObject(
      {
        code: 'bad_arguments',
      },
    );
    for (const task of [second, third]) await t.h.engine.cancel(task.id, { id: 'ann' });
  });

  it('going away while a review opens: the hand-over waits for it and hands it to the delegate too, never missing it', async () => {
    const task = await t.h.start('pair', 'draft the minutes');
    const first = await t.h.nextReview(task.id);
    // A review opening: its transaction read that nobody is away, and has not committed yet.
    const opening = await t.h.db.pool.connect();
    let going: Promise<{ handedOver: number }> | undefined;
    try {
      await opening.query('BEGIN');
      const settings = await withAwayDelegates(opening, first.settings);
      expect(settings.delegates ?? {}).toEqual({});
      await insertReview(opening, {
        id: `${first.id}:opened-meanwhile`,
        taskId: task.id,
        request: first.request,
        settings,
        dueAt: null,
      });
      going = t.h.engine.claims.away('U0BOB', new Date(Date.now() + 86_400_000), 'U0DAN');
      await until('going away waits for the review to open', async () => {
        const r = await t.h.db.pool.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'
             AND datname = current_database()`,
        );
        return r.rowCount ? true : undefined;
      });
      await opening.query('COMMIT');
    } finally {
      opening.release();
    }
    expect(await going).toEqual({ handedOver: 2 });
    const pending = await t.h.engine.reviews(task.id, 'pending');
    expect(pending.map((r) => r.settings.delegates)).toEqual([{ U0BOB: 'U0DAN' }, { U0BOB: 'U0DAN' }]);
    await t.h.engine.claims.away('U0BOB', null);
    await t.h.engine.cancel(task.id, { id: 'ann' });
  });

  it('a stand-in fills the seat of whom they stand in for, once: a new delegate or the person back does not count it again, and the requester’s stand-in may not approve', async () => {
    const { task } = await t.h.engine.start({
      workflow: 'specialist',
      text: 'reconcile the March invoices',
      requester: 'U0REQ',
      surface: 'cli',
    });
    const review = await t.h.nextReview(task.id);
    const until = new Date(Date.now() + 86_400_000);
    const approve = (id: string) =>
      t.h.engine.decide({ reviewId: review.id, actor: { id }, action: 'approve' });
    // The requester is named, but may not approve their own task; nor may one in their place.
    await t.h.engine.claims.away('U0REQ', until, 'U0EVE');
    await expect(approve('U0EVE')).rejects.toMatchObject({
      code: 'not_allowed',
      message: expect.stringContaining('in place of the person who started this task'),
    });
    await t.h.engine.claims.away('U0REQ', null);

    await t.h.engine.claims.away('U0ANN', until, 'U0DAN');
    expect((await approve('U0DAN')).review).toMatchObject({
      status: 'pending',
      approvals: [{ by: 'U0DAN' }],
    });
    await t.h.engine.claims.away('U0ANN', until, 'U0EVE');
    // Eve stands in for Ann too: Ann's seat is filled already.
    const filled = {
      code: 'counted_already',
      message: expect.stringContaining('<@U0DAN> has approved this in place of <@U0ANN> already'),
    };
    await expect(approve('U0EVE')).rejects.toMatchObject(filled);
    await t.h.engine.claims.away('U0ANN', null);
    await expect(approve('U0ANN')).rejects.toMatchObject(filled);
    // Ann, back, is offered no approval: her seat is filled.
    const ann = await t.h.engine.choicesFor(await t.h.nextReview(task.id), task, { id: 'U0ANN' });
    expect(ann.actions).not.toContain('approve');
    expect((await t.h.nextReview(task.id)).approvals.map((a) => [a.by, a.for])).toEqual([['U0DAN', 'U0ANN']]);
    // Two more people, two more seats: the quorum of three.
    expect((await approve('U0BOB')).review.status).toBe('pending');
    // Cat is listed herself: her approval fills her own seat, though she stands in for Ann too.
    await t.h.engine.claims.away('U0ANN', until, 'U0CAT');
    const decided = (await approve('U0CAT')).review;
    expect(decided.decision?.approvals).toEqual([
      expect.objectContaining({ by: 'U0DAN', for: 'U0ANN' }),
      expect.objectContaining({ by: 'U0BOB' }),
      { by: 'U0CAT', at: expect.any(String) },
    ]);
    await t.h.engine.claims.away('U0ANN', null);
    expect(decided).toMatchObject({
      status: 'decided',
      decision: { action: 'approve' },
    });
  });

  it('away to Dan, then to Eve: what Dan held for Ann is Eve’s; back twice: one return, the review Ann’s again', async () => {
    const task = await t.h.start('pair', 'draft the agenda');
    const review = await t.h.nextReview(task.id);
    await t.h.engine.claims.claim(review.id, { id: 'U0ANN' });
    const until = new Date(Date.now() + 86_400_000);
    await t.h.engine.claims.away('U0ANN', until, 'U0DAN');
    expect((await t.h.nextReview(task.id)).claimedBy).toBe('U0DAN');
    expect(await t.h.engine.claims.away('U0ANN', until, 'U0EVE')).toEqual({ handedOver: 1 });
    expect(await t.h.nextReview(task.id)).toMatchObject({
      claimedBy: 'U0EVE',
      settings: { delegates: { U0ANN: 'U0EVE' } },
    });
    expect(await t.h.engine.claims.away('U0ANN', null)).toEqual({ handedOver: 1 });
    expect(await t.h.engine.claims.away('U0ANN', null)).toEqual({ handedOver: 0 });
    expect(await t.h.nextReview(task.id)).toMatchObject({ claimedBy: 'U0ANN', settings: { delegates: {} } });
    const audit = await t.h.db.pool.query<{ action: string; actor: string }>(
      'SELECT action, actor FROM signoff.audit WHERE review_id = $1 ORDER BY id',
      [review.id],
    );
    expect(audit.rows.map((r) => `${r.action} ${r.actor}`)).toEqual([
      'claim U0ANN',
      'away U0ANN',
      'away U0ANN',
      'back U0ANN',
    ]);
    await t.h.engine.cancel(task.id, { id: 'ann' });
  });
});
