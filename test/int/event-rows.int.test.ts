/**
 * Event rows are parsed when read. One whose stored payload does not read as the event it names
 * (another version wrote it, say) is read, wherever it is read, as a note that it could not be
 * shown: its surface says so instead of being shown a guess, and the events after it go on.
 */
import { describe, expect, it } from 'vitest';
import { record } from '../../src/engine/event-store.js';
import { deliveryJob, deliveryQueue } from '../../src/engine/job-names.js';
import { harnessPerFile } from '../helpers/harness.js';

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
});
