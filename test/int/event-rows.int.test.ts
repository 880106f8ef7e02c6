/**
 * Event rows are parsed when read. One whose stored payload does not read as the event it names
 * (another version wrote it, say) is read, wherever it is read, as a note that it could not be
 * shown: its surface says so instead of being shown a guess, and the events after it go on.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { record, recordAll } from '../../src/engine/event-store.js';
import { deliveryJob, deliveryQueue } from '../../src/engine/job-names.js';
import { harnessPerFile } from '../helpers/harness.js';
import { until } from '../helpers/slack-thread.js';

const t = harnessPerFile('event_rows', () => ({ yaml: 'workflows:\n  pair:\n    maxIterations: 1\n' }));

describe('event rows, parsed when read', () => {
  it('a stored event that does not read as one is shown as a note that it could not be shown; the events after it go on', async () => {
    const task = await t.h.start('pair', 'name the mascot');
    await t.h.nextReview(task.id);
    await t.h.shown(task.id);
    const { pool } = t.h.db;
    // A card whose review lacks what a review has, and a payload naming no event at all.
    await pool.query(
      `INSERT INTO signoff.events (task_id, key, type, payload) VALUES
         ($1, 'old:card', 'review_requested', '{"type": "review_requested", "review": {"id": "r-old"}}'),
         ($1, 'old:odd', 'odd', '{"type": "odd"}')`,
      [task.id],
    );
    await record(pool, task.id, 'later:words', {
      type: 'agent_said',
      agent: 'Author',
      text: 'after the old ones',
    });
    await t.h.runtime.schedule(pool, deliveryJob(task));
    t.h.runtime.wake(deliveryQueue('cli'));
    await t.h.shown(task.id);

    const keys = ['old:card', 'old:odd', 'later:words'];
    const shown = t.h.delivered.filter((e) => e.taskId === task.id && keys.includes(e.key));
    expect(shown.map((e) => e.key)).toEqual(keys);
    expect(shown.map((e) => e.event)).toEqual([
      {
        type: 'delivery_failed',
        failedKey: 'old:card',
        failedType: 'review_requested',
        code: 'unreadable_event',
      },
      { type: 'delivery_failed', failedKey: 'old:odd', failedType: 'task_status', code: 'unreadable_event' },
      { type: 'agent_said', agent: 'Author', text: 'after the old ones' },
    ]);
    // The terminal's feed and `signoff events` read it the same way.
    const read = (await t.h.engine.events(task.id)).filter((e) => keys.includes(e.key)).map((e) => e.event);
    expect(read).toEqual(shown.map((e) => e.event));
    const records = await t.h.engine.eventRecords(task.id);
    expect(records.find((e) => e.key === 'old:card')).toMatchObject({ state: 'delivered' });
  });

  it("a run's words recorded while a cancel of its task commits are not recorded: the task's row is waited for and read as cancelled", async () => {
    const task = await t.h.start('pair', 'name the ferry');
    await t.h.nextReview(task.id);
    const { pool } = t.h.db;
    const said = (key: string) => [
      { key, event: { type: 'agent_said' as const, agent: 'Author', text: key } },
    ];
    // While the task runs that generation, its words are recorded.
    expect(await recordAll(pool, task.id, said('words:before'), task)).toHaveLength(1);

    const cancel = new pg.Client({ connectionString: t.db.url });
    await cancel.connect();
    try {
      await cancel.query('BEGIN');
      await cancel.query(`UPDATE signoff.tasks SET status = 'cancelled' WHERE id = $1`, [task.id]);
      const recording = recordAll(pool, task.id, said('words:during'), task);
      // The record waits for the cancel's row lock (seen in pg_locks, not slept for).
      await until('the record waits for the cancel', async () => {
        const r = await pool.query(
          `SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
           WHERE NOT l.granted AND c.relname = 'tasks' UNION ALL
           SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO signoff.events%'`,
        );
        return r.rowCount ? true : undefined;
      });
      await cancel.query('COMMIT');
      expect(await recording).toEqual([]);
    } finally {
      await cancel.end();
    }
    const kept = await pool.query('SELECT key FROM signoff.events WHERE task_id = $1 AND key LIKE $2', [
      task.id,
      'words:%',
    ]);
    expect(kept.rows.map((r) => r.key)).toEqual(['words:before']);
  });
});
