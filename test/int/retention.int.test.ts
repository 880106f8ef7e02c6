/**
 * Retention: finished tasks older than the configured age lose their checkpoints, delivered
 * events and Slack bookkeeping; open tasks and young ones keep everything; tasks, reviews and
 * the audit log stay unless the audit log has an age of its own. Scheduled as a daily job.
 */
import { describe, expect, it } from 'vitest';
import { purgeOld } from '../../src/engine/retention.js';
import { claimRequest } from '../../src/slack/inbound/claims.js';
import { findReply, recordReply } from '../../src/slack/inbound/replies.js';
import { purgeSlackBookkeeping } from '../../src/slack/retention.js';
import { recordPost } from '../../src/slack/shared/posts.js';
import { createStandingStore } from '../../src/slack/shared/standing-store.js';
import { harnessPerFile, testClock } from '../helpers/harness.js';

const clock = testClock();
// A server: it takes the daily retention run (a terminal command never does).
const t = harnessPerFile('retention', () => ({ clock, retention: true }));
const DAY = 86_400;

const count = async (sql: string, args: unknown[]) =>
  Number((await t.h.db.pool.query<{ n: string }>(sql, args)).rows[0]?.n);
const checkpointsOf = (taskId: string) =>
  count(`SELECT count(*) AS n FROM langgraph.checkpoints WHERE thread_id = $1 OR thread_id LIKE $1 || '#%'`, [
    taskId,
  ]);
const eventsOf = (taskId: string) =>
  count('SELECT count(*) AS n FROM signoff.events WHERE task_id = $1', [taskId]);
const postsOf = (keys: string[]) =>
  count('SELECT count(*) AS n FROM signoff.slack_posts WHERE key = ANY($1)', [keys]);

describe('retention', () => {
  it("a finished task older than the age loses its checkpoints, events, posts' records and replies heard; an open one keeps them; what Slack said of people goes by age", async () => {
    const done = await t.h.start('pair', 'write the retention policy');
    const review = await t.h.nextReview(done.id);
    await t.h.engine.decide({ reviewId: review.id, actor: { id: 'bob' }, action: 'approve' });
    await t.h.waitFor(done.id, (x) => x.status === 'done');
    await t.h.shown(done.id);
    const open = await t.h.start('pair', 'draft the onboarding mail');
    await t.h.nextReview(open.id);
    const keys = [`${done.id}:started:0`, `card:${review.id}`, `dm:${review.id}:U0BOB`];
    for (const key of keys) await recordPost(t.h.db.pool, key, 'C0WORK', '1.0001');
    await recordPost(t.h.db.pool, `${open.id}:started:0`, 'C0WORK', '1.0002');
    const heard = { channel: 'C0WORK', ts: '1.0003', taskId: done.id, user: 'U0BOB', text: 'lgtm' };
    await recordReply(t.h.db.pool, heard);
    expect(await findReply(t.h.db.pool, heard.channel, heard.ts)).toEqual(heard);
    expect(await checkpointsOf(done.id)).toBeGreaterThan(0);
    // A start refused for good (the bot not in the channel) and one still to be finished.
    const start = { team: 'T0TEAM', channel: 'C0OUT', user: 'U0ANN', workflow: 'pair', text: 'x' };
    await claimRequest(t.h.db.pool, 'command:refused', start);
    await t.h.db.pool.query("UPDATE signoff.slack_requests SET start = NULL WHERE key = 'command:refused'");
    await claimRequest(t.h.db.pool, 'command:unfinished', start);
    // A link Slack gave for a message (the Home tab's, a DM's).
    await t.h.db.pool.query(
      "INSERT INTO signoff.slack_permalinks (channel, ts, permalink) VALUES ('C0WORK', '1.0001', 'https://acme.slack.com/archives/C0WORK/p10001')",
    );
    // The channels Slack said someone is in (kept a minute for their Home tab and list).
    await t.h.db.pool.query(
      "INSERT INTO signoff.slack_user_channels (user_id, channels, answered_at) VALUES ('U0OLD', '{C0WORK}', now())",
    );
    const auditBefore = await count('SELECT count(*) AS n FROM signoff.audit WHERE task_id = $1', [done.id]);
    // What Slack said of where someone belongs: of use for a day, whatever task it came with.
    const standing = createStandingStore(t.h.db.pool);
    await standing.write('U0OLD', 'member', clock.now().getTime());

    const settings = { days: 30, auditDays: 0 };
    // Young: nothing goes.
    expect(await purgeOld(t.h.db.pool, settings, clock, [purgeSlackBookkeeping])).toMatchObject({ tasks: 0 });
    clock.advance(31 * DAY);
    await standing.write('U0NEW', 'external', clock.now().getTime());
    const purged = await purgeOld(t.h.db.pool, settings, clock, [purgeSlackBookkeeping]);
    expect(await standing.read('U0OLD')).toBeUndefined();
    expect(await standing.read('U0NEW')).toEqual({ standing: 'external', at: clock.now().getTime() });
    expect(purged.tasks).toBe(1);
    expect(await checkpointsOf(done.id)).toBe(0);
    expect(await eventsOf(done.id)).toBe(0);
    expect(await postsOf(keys)).toBe(0);
    expect(await findReply(t.h.db.pool, heard.channel, heard.ts)).toBeUndefined();
    const requests = await t.h.db.pool.query<{ key: string }>(
      "SELECT key FROM signoff.slack_requests WHERE key LIKE 'command:%'",
    );
    expect(requests.rows.map((r) => r.key)).toEqual(['command:unfinished']);
    expect(await count('SELECT count(*) AS n FROM signoff.slack_permalinks', [])).toBe(0);
    expect(await count('SELECT count(*) AS n FROM signoff.slack_user_channels', [])).toBe(0);
    // What people and auditors read stays.
    expect((await t.h.engine.getTask(done.id))?.status).toBe('done');
    expect((await t.h.engine.reviews(done.id)).map((r) => r.decision?.by)).toEqual(['bob']);
    expect(await count('SELECT count(*) AS n FROM signoff.audit WHERE task_id = $1', [done.id])).toBe(
      auditBefore,
    );
    // The open task keeps everything, though it is as old.
    expect(await checkpointsOf(open.id)).toBeGreaterThan(0);
    expect(await eventsOf(open.id)).toBeGreaterThan(0);
    expect(await postsOf([`${open.id}:started:0`])).toBe(1);
    // Done with: the next run finds nothing new.
    expect((await purgeOld(t.h.db.pool, settings, clock, [purgeSlackBookkeeping])).tasks).toBe(0);

    // An age for the audit log trims it too.
    const trimmed = await purgeOld(t.h.db.pool, { days: 30, auditDays: 30 }, clock);
    expect(trimmed.audit).toBeGreaterThanOrEqual(auditBefore);
    expect(await count('SELECT count(*) AS n FROM signoff.audit WHERE task_id = $1', [done.id])).toBe(0);
  });

  it('is scheduled as one queued job, whichever servers run it', async () => {
    const jobs = await t.h.db.pool.query<{ due_at: Date }>(
      `SELECT due_at FROM signoff.jobs WHERE queue = 'signoff-retention'`,
    );
    expect(jobs.rows).toHaveLength(1);
    expect(jobs.rows[0]?.due_at.getTime()).toBeGreaterThan(Date.now());
  });
});
