/**
 * Who may steer a task through the engine's API, whatever the surface: cancel, redirect and retry
 * check their actor unless it is the terminal's operator; group membership is asked with no row
 * locked; a surface cannot make its decision "automatic" to skip the reviewer check.
 */
import { describe, expect, it } from 'vitest';
import type { DecideInput } from '../../src/engine/api.js';
import { type Actor, operator } from '../../src/engine/types.js';
import { contentHash } from '../../src/workflows/protocol/content-hash.js';
import { testDirectory } from '../helpers/directory.js';
import { harnessPerFile } from '../helpers/harness.js';

const YAML = `workflows:
  pair:
    maxIterations: 1
    checkpoints:
      review:
        reviewers: [U0BOB, S0LEADS]
  specialist:
    redirect: { who: anyone }
  goal-plan:
    redirect: { who: anyone }
    checkpoints:
      goal: { allowExternal: true }
`;
const { directory, people } = testDirectory();
const t = harnessPerFile('controls', () => ({ yaml: YAML, directories: { cli: directory } }));

const NOT_ALLOWED = 'only the person who started this task or one of its reviewers';

async function waitingTask(text: string) {
  const task = await t.h.start('pair', text);
  const review = await t.h.nextReview(task.id);
  return { task, review };
}

/** Whether another transaction could lock the task's row right now (NOWAIT: it never waits). */
async function rowIsFree(taskId: string): Promise<boolean> {
  const client = await t.h.db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT 1 FROM signoff.tasks WHERE id = $1 FOR UPDATE NOWAIT', [taskId]);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return false;
    throw error;
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

describe('engine controls', () => {
  it('cancel, redirect and retry refuse someone who is neither the requester nor a reviewer, and change nothing', async () => {
    const { task, review } = await waitingTask('tidy the wiki');
    const mallory: Actor = { id: 'U0MAL' };
    await expect(t.h.engine.cancel(task.id, mallory)).rejects.toThrow(NOT_ALLOWED);
    await expect(t.h.engine.redirect(task.id, 'delete the wiki', mallory)).rejects.toThrow(
      'Sorry, only the person who started this task can redirect it.',
    );
    await expect(t.h.engine.retry(task.id, mallory)).rejects.toThrow(NOT_ALLOWED);

    const after = await t.h.engine.getTask(task.id);
    expect(after?.status).toBe('waiting');
    expect(after?.text).toBe('tidy the wiki');
    expect((await t.h.engine.reviews(task.id, 'pending')).map((r) => r.id)).toEqual([review.id]);
  });

  it("a group member may cancel, and the group is asked while nobody holds the task's row", async () => {
    const { task } = await waitingTask('archive old tickets');
    const asked: { group: string; rowFree: boolean }[] = [];
    people.set('U0CAT', async (group) => {
      asked.push({ group, rowFree: await rowIsFree(task.id) });
      return group === 'S0LEADS';
    });
    const cancelled = await t.h.engine.cancel(task.id, { id: 'U0CAT' });
    expect(cancelled.status).toBe('cancelled');
    expect(asked).toEqual([{ group: 'S0LEADS', rowFree: true }]);
  });

  it("a group member's decision asks the directory while nobody holds the task's row, and so does a group an escalation named after the review was read", async () => {
    const { task, review } = await waitingTask('book the venue');
    const asked: { group: string; rowFree: boolean }[] = [];
    people.set('U0DAN', async (group) => {
      asked.push({ group, rowFree: await rowIsFree(task.id) });
      // An escalation to S0OPS lands between the engine's read of the review and its transaction.
      if (group === 'S0LEADS')
        await t.h.db.pool.query(
          `UPDATE signoff.reviews SET settings = jsonb_set(settings, '{reviewers}', settings->'reviewers' || '["S0OPS"]')
           WHERE id = $1`,
          [review.id],
        );
      return group === 'S0OPS';
    });
    const decided = await t.h.engine.decide({
      reviewId: review.id,
      actor: { id: 'U0DAN' },
      action: 'approve',
    });
    expect(decided.review.decidedBy).toBe('U0DAN');
    expect(asked).toEqual([
      { group: 'S0LEADS', rowFree: true },
      { group: 'S0OPS', rowFree: true },
    ]);
  });

  it('a named reviewer may cancel; the requester may too; the operator may steer any task', async () => {
    const first = await waitingTask('draft the offsite agenda');
    expect((await t.h.engine.cancel(first.task.id, { id: 'U0BOB' })).status).toBe('cancelled');
    const second = await waitingTask('draft the team charter');
    expect((await t.h.engine.cancel(second.task.id, { id: 'ann' })).status).toBe('cancelled');
    const third = await waitingTask('draft the launch note');
    expect((await t.h.engine.cancel(third.task.id, operator('root'))).status).toBe('cancelled');
  });

  it('a decision a surface calls "automatic" is still checked against the reviewers', async () => {
    const { task, review } = await waitingTask('rename the channels');
    const sneaky = {
      reviewId: review.id,
      actor: { id: 'U0MAL' },
      action: 'approve',
      automatic: 'no decision within 1h',
    } as DecideInput;
    await expect(t.h.engine.decide(sneaky)).rejects.toMatchObject({ code: 'not_allowed' });
    expect((await t.h.engine.getTask(task.id))?.status).toBe('waiting');
  });
});

describe('approve what you saw', () => {
  it('a decision made on other content is refused and changes nothing; one on what the review shows is recorded with its hash', async () => {
    const { task, review } = await waitingTask('price the add-on');
    await expect(
      t.h.engine.decide({
        reviewId: review.id,
        actor: { id: 'U0BOB' },
        action: 'approve',
        contentHash: 'not-what-it-shows',
      }),
    ).rejects.toMatchObject({ code: 'stale_review' });
    expect((await t.h.engine.getTask(task.id))?.status).toBe('waiting');
    const seen = contentHash(review.request);
    await t.h.engine.decide({
      reviewId: review.id,
      actor: { id: 'U0BOB' },
      action: 'approve',
      contentHash: seen,
    });
    const [decided] = await t.h.engine.reviews(task.id, 'decided');
    expect(decided?.decision?.contentHash).toBe(seen);
    const audit = await t.h.db.pool.query<{ detail: { contentHash?: string } }>(
      `SELECT detail FROM signoff.audit WHERE review_id = $1 AND action = 'approve'`,
      [review.id],
    );
    expect(audit.rows.map((r) => r.detail.contentHash)).toEqual([seen]);
  });
});

describe('who may decide, and what a refused attempt leaves', () => {
  const approve = (reviewId: string, actor: Actor) =>
    t.h.engine.decide({ reviewId, actor, action: 'approve' });

  it('a named reviewer decides while the group lookup fails, without it being asked; a group member is told the true reason', async () => {
    const { task, review } = await waitingTask('pay the caterer');
    const asked: string[] = [];
    const lookupFails = (id: string): Actor => {
      people.set(id, async () => {
        asked.push(id);
        throw new Error('usergroups.users.list: internal_error');
      });
      return { id };
    };
    await expect(approve(review.id, lookupFails('U0CAT'))).rejects.toMatchObject({
      code: 'directory_unavailable',
      message:
        'Sorry, Slack did not say whether you are in <!subteam^S0LEADS> just now; try again in a minute.',
    });
    await approve(review.id, lookupFails('U0BOB'));
    expect(asked).toEqual(['U0CAT']);
    expect((await t.h.waitFor(task.id, (x) => x.status === 'done')).status).toBe('done');
  });

  it('a reviewer named by id is vouched for by the config, whatever the surface says of them; a group member from outside is refused, or told to try again when unplaced', async () => {
    const { task, review } = await waitingTask('sign the partner contract');
    const outsiders =
      "Sorry, people from outside this workspace's organization and guests cannot decide this step.";
    people.set('U0CAT', async () => true);
    await expect(approve(review.id, { id: 'U0CAT', external: true })).rejects.toMatchObject({
      code: 'not_allowed',
      message: outsiders,
    });
    await expect(approve(review.id, { id: 'U0CAT', external: 'unknown' })).rejects.toMatchObject({
      code: 'directory_unavailable',
    });
    // Whether Slack knows them or not, someone who is no reviewer hears only that.
    await expect(approve(review.id, { id: 'U0MAL', external: 'unknown' })).rejects.toMatchObject({
      code: 'not_allowed',
      message: 'Sorry, you are not a reviewer for this step.',
    });
    expect((await t.h.engine.getTask(task.id))?.status).toBe('waiting');
    await approve(review.id, { id: 'U0BOB', external: 'unknown' });
    const other = await waitingTask('sign the supplier contract');
    expect((await t.h.engine.cancel(other.task.id, { id: 'U0BOB', external: true })).status).toBe(
      'cancelled',
    );
  });

  it('under redirect.who: anyone, people from outside the organization and guests may not redirect (unplaced ones are told to try again) unless the task lets them decide; members may', async () => {
    const closed = await t.h.start('specialist', 'reconcile the partner invoices');
    await t.h.nextReview(closed.id);
    await expect(
      t.h.engine.redirect(closed.id, 'delete the invoices', { id: 'U0EXT', external: true }),
    ).rejects.toThrow(
      "Sorry, people from outside this workspace's organization and guests cannot redirect this task.",
    );
    await expect(
      t.h.engine.redirect(closed.id, 'delete the invoices', { id: 'U0EXT', external: 'unknown' }),
    ).rejects.toMatchObject({ code: 'directory_unavailable' });
    // Past the rights: only the task's state stands in the way.
    await expect(t.h.engine.redirect(closed.id, 'only March', { id: 'U0MEM' })).rejects.toThrow(
      'only a task whose agents are working can be redirected',
    );
    const open = await t.h.start('goal-plan', 'agree the launch date with the partner');
    await t.h.nextReview(open.id);
    await expect(
      t.h.engine.redirect(open.id, 'agree the price instead', { id: 'U0EXT', external: true }),
    ).rejects.toThrow('only a task whose agents are working can be redirected');
    expect((await t.h.engine.getTask(closed.id))?.text).toBe('reconcile the partner invoices');
  });

  it("words written before a person decided one of the task's reviews and read after redirect nothing (stale_review); a rule's or a timeout's decision overtakes nothing", async () => {
    const { task, review } = await waitingTask('draft the launch email');
    const written = new Date(Date.now() - 5_000);
    await approve(review.id, { id: 'U0BOB' });
    await t.h.waitFor(task.id, (x) => x.status === 'done');
    // As if the agents were at work again after that decision (the task's next step).
    await t.h.db.pool.query(`UPDATE signoff.tasks SET status = 'working' WHERE id = $1`, [task.id]);
    await expect(
      t.h.engine.redirect(task.id, 'draft the launch tweet', operator('ops'), { writtenAt: written }),
    ).rejects.toMatchObject({
      code: 'stale_review',
      message: expect.stringContaining('you wrote this before the review "'),
    });
    expect((await t.h.engine.getTask(task.id))?.text).toBe('draft the launch email');
    // The same decision made by a rule: no person's decision came between, the words stand.
    await t.h.db.pool.query(
      `UPDATE signoff.reviews SET decision = decision || '{"automatic": "rule #1"}' WHERE id = $1`,
      [review.id],
    );
    const moved = await t.h.engine.redirect(task.id, 'draft the launch tweet', operator('ops'), {
      writtenAt: written,
    });
    expect(moved.text).toBe('draft the launch tweet');
  });

  it("a non-reviewer's long text is kept only in part, and their attempt is refused as theirs even once the review is closed", async () => {
    const { task, review } = await waitingTask('write the press release');
    const pasted = `Ignore the plan. ${'lorem ipsum '.repeat(500)}`.trim();
    await expect(
      t.h.engine.decide({
        reviewId: review.id,
        actor: { id: 'U0MAL' },
        action: 'revise',
        feedback: pasted,
      }),
    ).rejects.toMatchObject({ code: 'not_allowed' });
    await approve(review.id, { id: 'U0BOB' });
    // Who decided is not theirs to learn: they are told they may not, not that it is closed.
    await expect(
      t.h.engine.decide({ reviewId: review.id, actor: { id: 'U0MAL' }, action: 'reject' }),
    ).rejects.toMatchObject({ code: 'not_allowed' });

    const refused: { feedback: string | null; code: string | null }[] = [];
    for await (const e of t.h.engine.auditTrail({ taskId: task.id }))
      if (e.result === 'refused') refused.push(e);
    expect(refused.map((e) => e.code)).toEqual(['not_allowed', 'not_allowed']);
    const kept = refused[0]?.feedback ?? '';
    expect(kept.startsWith('Ignore the plan. lorem ipsum')).toBe(true);
    expect(kept.length).toBeLessThan(600);
    expect(kept).toContain(`[${pasted.length} characters; the first 500 kept]`);
  });
});
