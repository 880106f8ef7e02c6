/**
 * Redirecting a running task (seed 003): the step in flight stops (its model call is aborted,
 * also when another process asks), nothing of it is posted, the abandoned goal is kept and the
 * workflow starts over on the new goal.
 */
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createAbortListener, DEAF_CHECK_MS } from '../../src/engine/abort-listener.js';
import { createLogger } from '../../src/logger.js';
import { type Harness, harnessPerFile, openHarness } from '../helpers/harness.js';
import { scriptedWith, thinkUnlessAborted } from '../helpers/slack-service.js';

/**
 * Calls about an old goal (marked SLOW) think for 30 s, unless aborted, from the second on; calls
 * after a redirect (their goal names the one it replaces) answer at once.
 */
const started: string[] = [];
let lateStarted = false;
const t = harnessPerFile('redirect', () => ({
  modelFor: scriptedWith(async (name, input, options) => {
    const prompt = JSON.stringify(input.map((m) => m.content));
    if (prompt.includes('SLOW') && !prompt.includes('replaces the earlier goal')) {
      started.push(name);
      if (started.length > 1) await thinkUnlessAborted(30_000, options?.signal);
    }
    // Each call about a HUSH task thinks a moment, so that its task can change while it runs.
    if (prompt.includes('HUSH')) await thinkUnlessAborted(700, options?.signal);
    // The new goal's first call thinks a moment, so that a late abort can arrive while it runs.
    if (prompt.includes('LATE') && prompt.includes('replaces the earlier goal') && !lateStarted) {
      lateStarted = true;
      await thinkUnlessAborted(1500, options?.signal);
    }
  }),
}));
let other: Harness | undefined;
afterAll(async () => {
  await other?.close();
});

const said = (taskId: string) =>
  t.h.delivered
    .filter((e) => e.taskId === taskId && e.event.type === 'agent_said')
    .map((e) => e.event as { agent: string; text: string });

async function untilThinking(n: number) {
  for (let i = 0; i < 400 && started.length < n; i++) await new Promise((r) => setTimeout(r, 25));
  expect(started.length).toBeGreaterThanOrEqual(n);
}

describe('redirect', () => {
  it('stops the step in flight, keeps the old goal and its graph thread, and starts over on the new one', async () => {
    started.length = 0;
    const task = await t.h.start('pair', 'SLOW write a press release');
    await untilThinking(2); // the Author answered; the Reviewer is thinking
    const t0 = Date.now();
    const moved = await t.h.engine.redirect(task.id, 'write a blog post instead', { id: 'ann' });
    expect(moved.generation).toBe(1);
    const review = await t.h.nextReview(task.id);
    expect(Date.now() - t0).toBeLessThan(15_000);

    const current = await t.h.engine.getTask(task.id);
    expect(current?.text).toBe('write a blog post instead');
    expect(current?.abandonedGoals.map((g) => g.text)).toEqual(['SLOW write a press release']);
    const texts = said(task.id).map((s) => s.text);
    // The Author's first answer was posted; the Reviewer's aborted one never was.
    expect(texts.filter((x) => x.includes('SLOW'))).toHaveLength(1);
    expect(texts.filter((x) => x.includes('write a blog post instead')).length).toBeGreaterThan(0);
    expect(review.request.body).toContain('write a blog post instead');
    // The abandoned generation's graph thread is kept as its history, next to the new one.
    const threads = await t.h.db.pool.query<{ thread_id: string }>(
      'SELECT DISTINCT thread_id FROM langgraph.checkpoints WHERE thread_id LIKE $1 ORDER BY thread_id',
      [`${task.id}%`],
    );
    expect(threads.rows.map((r) => r.thread_id)).toEqual([task.id, `${task.id}#1`]);
    const redirected = (await t.h.engine.events(task.id)).filter((e) => e.event.type === 'task_redirected');
    expect(redirected.map((e) => e.event)).toEqual([
      {
        type: 'task_redirected',
        text: 'write a blog post instead',
        by: 'ann',
        abandoned: 'SLOW write a press release',
      },
    ]);
    expect(
      (await t.h.engine.events(task.id)).some(
        (e) => e.event.type === 'task_status' && (e.event as { status: string }).status === 'failed',
      ),
    ).toBe(false);
  });

  it('a redirect from another process stops the run where it runs', async () => {
    started.length = 0;
    const task = await t.h.start('pair', 'SLOW plan the roadmap');
    await untilThinking(2);
    other = await openHarness({ url: t.db.url, work: false });
    await other.engine.redirect(task.id, 'plan only Q3', { id: 'ann' });
    // Without the cross-process abort the old call would hold the task for 30 s.
    const review = await t.h.nextReview(task.id);
    expect(review.request.body).toContain('plan only Q3');
  });

  it('the abort listener comes back after its connection is killed, and a redirect from elsewhere still stops the run', async () => {
    const listeners = async () =>
      (
        await t.h.db.pool.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN signoff_abort'`,
        )
      ).rows.map((r) => r.pid);
    const [before] = await listeners();
    expect(before).toBeTypeOf('number');
    await t.h.db.pool.query('SELECT pg_terminate_backend($1)', [before]);
    for (let i = 0; i < 200; i++) {
      const now = await listeners();
      if (now.length === 1 && now[0] !== before) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect((await listeners()).filter((pid) => pid !== before)).toHaveLength(1);

    started.length = 0;
    const task = await t.h.start('pair', 'SLOW plan the hiring');
    await untilThinking(2);
    other ??= await openHarness({ url: t.db.url, work: false });
    const t0 = Date.now();
    await other.engine.redirect(task.id, 'plan only the interns', { id: 'ann' });
    // Without a listener the old call would hold the task for 30 s.
    const review = await t.h.nextReview(task.id);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(review.request.body).toContain('plan only the interns');
  });

  it('a cancel or a redirect this process never heard (the task changed, no notification came) stops the run once its listener reconnects; a run whose task did not change, or failed (a retry may take it up the next moment), goes on', async () => {
    started.length = 0;
    const healthy = await t.h.start('pair', 'SLOW plan the offsite');
    const missed = await t.h.start('pair', 'SLOW plan the budget');
    const moved = await t.h.start('pair', 'SLOW plan the party');
    const failed = await t.h.start('pair', 'SLOW plan the picnic');
    await untilThinking(5); // a call of each is thinking (30 s unless aborted)
    expect(t.h.runner.running()).toEqual(
      expect.arrayContaining([healthy.id, missed.id, moved.id, failed.id]),
    );
    await t.h.db.pool.query(`UPDATE signoff.tasks SET status = 'failed' WHERE id = $1`, [failed.id]);
    // What this process missed: one task was cancelled, another redirected, while nothing here
    // listened (the rows changed and no notification came).
    await t.h.db.pool.query(`UPDATE signoff.tasks SET status = 'cancelled' WHERE id = $1`, [missed.id]);
    await t.h.db.pool.query('UPDATE signoff.tasks SET generation = generation + 1 WHERE id = $1', [moved.id]);
    const [listener] = (
      await t.h.db.pool.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN signoff_abort'`,
      )
    ).rows;
    await t.h.db.pool.query('SELECT pg_terminate_backend($1)', [listener?.pid]);
    const t0 = Date.now();
    const stopped = () => !t.h.runner.running().some((id) => id === missed.id || id === moved.id);
    for (let i = 0; i < 400 && !stopped(); i++) await new Promise((r) => setTimeout(r, 25));
    // Without the check on reconnecting, those runs would think on for 30 s.
    expect(t.h.runner.running()).not.toContain(missed.id);
    expect(t.h.runner.running()).not.toContain(moved.id);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(t.h.runner.running()).toContain(healthy.id);
    expect(t.h.runner.running()).toContain(failed.id);
    expect((await t.h.engine.getTask(missed.id))?.status).toBe('cancelled');
    await t.h.engine.cancel(healthy.id, { id: 'ann' });
    await t.h.engine.cancel(moved.id, { id: 'ann' });
    await t.h.db.pool.query(`UPDATE signoff.tasks SET status = 'working' WHERE id = $1`, [failed.id]);
    await t.h.engine.cancel(failed.id, { id: 'ann' });
  });

  it('a run whose task was cancelled without its hearing it (a pooler, a notification not arrived yet) posts nothing more of what its agents say', async () => {
    const task = await t.h.start('pair', 'HUSH plan the picnic');
    const said = async () =>
      (await t.h.engine.events(task.id)).filter((e) => e.event.type === 'agent_said').map((e) => e.id);
    for (let i = 0; i < 400 && (await said()).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    const before = await said();
    expect(before).toHaveLength(1);
    // Cancelled where this process hears nothing of it: the run goes on to its end.
    await t.h.db.pool.query(`UPDATE signoff.tasks SET status = 'cancelled' WHERE id = $1`, [task.id]);
    for (let i = 0; i < 40 && !t.h.runner.running().includes(task.id); i++)
      await new Promise((r) => setTimeout(r, 25));
    for (let i = 0; i < 400 && t.h.runner.running().includes(task.id); i++)
      await new Promise((r) => setTimeout(r, 25));
    expect(t.h.runner.running()).not.toContain(task.id);
    // The Reviewer and the Author answered after the cancel; neither is recorded, so neither is shown.
    expect(await said()).toEqual(before);
    expect((await t.h.engine.getTask(task.id))?.status).toBe('cancelled');
  });

  it('the check for aborts missed while reconnecting is asked again until the database answers it', async () => {
    const asked: number[] = [];
    const listener = createAbortListener({
      pool: t.h.db.pool,
      logger: createLogger('silent'),
      onAbort: () => undefined,
      checkRuns: async () => {
        asked.push(Date.now());
        if (asked.length === 1) throw new Error('the database did not answer');
      },
    });
    await listener.start();
    try {
      const pids = async () =>
        (
          await t.h.db.pool.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN signoff_abort'`,
          )
        ).rows.map((r) => r.pid);
      // Both listeners (the harness's and this one) are cut; this one reconnects and checks.
      for (const pid of await pids()) await t.h.db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
      for (let i = 0; i < 400 && asked.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
      expect(asked).toHaveLength(2);
    } finally {
      await listener.stop();
    }
  });

  it('where notifications never arrive (a transaction-mode pooler), the runs under way are checked against the database every few seconds', async () => {
    const asked: number[] = [];
    // A pool through which a NOTIFY reaches no listener, as behind PgBouncer in transaction mode.
    const deaf = { options: t.h.db.pool.options, query: async () => ({ rows: [] }) } as unknown as pg.Pool;
    const listener = createAbortListener({
      pool: deaf,
      logger: createLogger('silent'),
      onAbort: () => undefined,
      checkRuns: async () => void asked.push(Date.now()),
    });
    await listener.start();
    try {
      for (let i = 0; i < 400 && asked.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
      expect(asked.length).toBeGreaterThanOrEqual(2);
    } finally {
      await listener.stop();
    }
    const after = asked.length;
    await new Promise((r) => setTimeout(r, DEAF_CHECK_MS + 500));
    expect(asked).toHaveLength(after);
  });

  it('only a working task can be redirected, and the new goal must say something', async () => {
    const task = await t.h.start('pair', 'name the meeting rooms');
    await t.h.nextReview(task.id);
    await expect(t.h.engine.redirect(task.id, 'something else', { id: 'ann' })).rejects.toThrow(
      'only a task whose agents are working can be redirected',
    );
    await expect(t.h.engine.redirect(task.id, '   ', { id: 'ann' })).rejects.toThrow(
      'Say what the new goal is.',
    );
  });

  it("a late abort for the old goal does not stop the new goal's run", async () => {
    started.length = 0;
    const task = await t.h.start('pair', 'SLOW plan the launch');
    await untilThinking(2);
    await t.h.engine.redirect(task.id, 'LATE plan the soft launch', { id: 'ann' });
    for (let i = 0; i < 400 && !lateStarted; i++) await new Promise((r) => setTimeout(r, 10));
    expect(lateStarted).toBe(true);
    // What a slow notification of the redirect does once it arrives: stop runs older than it.
    t.h.runner.abort(task.id, 1);
    await t.h.db.pool.query(`SELECT pg_notify('signoff_abort', $1)`, [`${task.id}#1`]);
    const review = await t.h.nextReview(task.id);
    expect(review.request.body).toContain('LATE plan the soft launch');
  });
});
