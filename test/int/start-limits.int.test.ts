/**
 * Start limits (issue 19, item 10): tasks in the agents' hands at once, per person and per
 * channel (the config file's `starts`). Nothing runs in this file (no workers), so every started
 * task stays `working`, as behind a busy queue.
 */
import { describe, expect, it } from 'vitest';
import { runCommand, terminalActor } from '../../src/cli/commands.js';
import { createFeed } from '../../src/cli/printer.js';
import { isSignoffError } from '../../src/errors.js';
import { harnessPerFile } from '../helpers/harness.js';

const file = harnessPerFile('start_limits', () => ({
  work: false,
  yaml: 'starts:\n  perPerson: 3\n  perChannel: 5\n',
}));

let n = 0;
const start = (requester: string, channel?: string, id?: string) =>
  file.h.engine.start({
    workflow: 'pair',
    text: `task ${++n}`,
    requester,
    surface: channel ? 'slack' : 'cli',
    channel,
    id,
    origin: channel ? { team: 'T0TEAM', channel, ts: `${n}.0001` } : undefined,
  });

/** The refusal a start got (its code and sentence), or undefined when it started. */
const refusalOf = (started: Promise<unknown>) =>
  started.then(
    () => undefined,
    (error) => {
      if (!isSignoffError(error)) throw error;
      return { code: error.code, message: error.message };
    },
  );

const PERSON_FULL =
  'You already have 3 tasks the agents are working on, the most one person may have at once. Start this one when one of them is done or waiting for a review, or cancel one you no longer need.';

describe('start limits', () => {
  it("a person's fourth start is refused with a sentence saying what to do, another person's start in the channel goes, and a task that reaches a review frees a place", async () => {
    const first = await start('U0ANN', 'C0ONE');
    await start('U0ANN', 'C0ONE');
    await start('U0ANN', 'C0TWO');
    expect(await refusalOf(start('U0ANN', 'C0ONE'))).toEqual({
      code: 'too_many_tasks',
      message: PERSON_FULL,
    });
    expect(await file.h.engine.startRefusal({ surface: 'slack', requester: 'U0ANN', channel: 'C0ONE' })).toBe(
      PERSON_FULL,
    );
    expect((await start('U0BOB', 'C0ONE')).created).toBe(true);

    await file.h.db.pool.query(`UPDATE signoff.tasks SET status = 'waiting' WHERE id = $1`, [first.task.id]);
    expect((await start('U0ANN', 'C0ONE')).created).toBe(true);
  });

  it("a channel at its limit refuses anyone's start; a start in another channel goes", async () => {
    for (const person of ['U1', 'U2', 'U3', 'U4', 'U5']) await start(person, 'C0BUSY');
    expect(await refusalOf(start('U6', 'C0BUSY'))).toEqual({
      code: 'too_many_tasks',
      message:
        'This channel already has 5 tasks the agents are working on, the most one channel may have at once. Start this one again in a few minutes, once some of them are done or waiting for a review, or start it in another channel.',
    });
    expect((await start('U6', 'C0QUIET')).created).toBe(true);
  });

  it('ten starts at once by one person with room for three: three start, seven are refused', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => refusalOf(start('U0RACE', 'C0RACE'))));
    expect(results.filter((r) => r === undefined)).toHaveLength(3);
    expect(results.filter((r) => r?.code === 'too_many_tasks')).toHaveLength(7);
    const { rows } = await file.h.db.pool.query(
      `SELECT count(*)::int AS n FROM signoff.tasks WHERE requester = 'U0RACE' AND status = 'working'`,
    );
    expect(rows[0].n).toBe(3);
  });

  it('a start repeated for a task that exists finds it, even with the person at the limit', async () => {
    const kept = await start('U0REP', 'C0REP', 'slack-T0TEAM-C0REP-1.0001');
    await start('U0REP', 'C0REP');
    await start('U0REP', 'C0REP');
    const again = await start('U0REP', 'C0REP', 'slack-T0TEAM-C0REP-1.0001');
    expect([again.created, again.task.id]).toEqual([false, kept.task.id]);
  });

  it('at the terminal, a refused start is one line saying what to do, and exits 1 (it could not be done now; the words were right)', async () => {
    for (let i = 0; i < 3; i++) await start(terminalActor());
    let out = '';
    let err = '';
    const io = {
      out: {
        write: (s: string) => {
          out += s;
        },
      },
      err: {
        write: (s: string) => {
          err += s;
        },
      },
      lines: { next: async () => undefined, asked: async () => 0, ended: () => true, close: () => undefined },
    };
    const feed = createFeed({ events: async () => [], out: io.out });
    expect(await runCommand(['run', 'pair', 'one', 'more'], file.h.engine, feed, io)).toBe(1);
    expect(err).toBe(`${PERSON_FULL}\n`);
    expect(out).toBe('');
  });
});
