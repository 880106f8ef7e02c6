/**
 * Decisions go ahead of starts in the queue (issue 19, item 10): with the only worker busy and
 * starts queued behind it, a reviewer's decision is the next run the worker takes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/engine/types.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { type Harness, openHarness } from '../helpers/harness.js';
import { scriptedWith } from '../helpers/slack-service.js';
import { until } from '../helpers/slack-thread.js';

const TASKS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
/** Which task each model call was for, in the order they were made. */
const calls: string[] = [];
let gate: { opened: Promise<void>; open: () => void } | undefined;
let db: TestDatabase;
let h: Harness;

beforeAll(async () => {
  db = await createTestDatabase('run_priority');
  h = await openHarness({
    url: db.url,
    work: false,
    yaml: 'workflows:\n  pair:\n    maxIterations: 1\n',
    modelFor: scriptedWith(async (_agent, input) => {
      const said = JSON.stringify(input);
      calls.push(TASKS.find((t) => said.includes(`${t} task`)) ?? '?');
      await gate?.opened;
    }),
  });
  // One worker: whatever it takes next is what the queue put first.
  await h.engine.work('cli', 1);
});
afterAll(async () => {
  gate?.open();
  await h?.close();
  await db?.drop();
});

const waiting = (t: Task) => t.status === 'waiting';

describe('the run queue', () => {
  it("with the worker busy and four starts queued behind it, a decision's resume runs before them", async () => {
    const decided = await h.start('pair', 'alpha task');
    const review = await h.nextReview(decided.id);

    let open: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    gate = { opened, open: () => open() };
    const busy = await h.start('pair', 'bravo task');
    await until('the worker busy with bravo', () => (calls.at(-1) === 'bravo' ? true : undefined));
    const queued = [];
    for (const name of ['charlie', 'delta', 'echo', 'foxtrot'])
      queued.push(await h.start('pair', `${name} task`));

    await h.engine.decide({
      reviewId: review.id,
      actor: { id: 'ann' },
      action: 'revise',
      feedback: 'shorter, please',
    });
    const mark = calls.length;
    gate.open();
    gate = undefined;

    for (const task of [decided, busy, ...queued]) await h.waitFor(task.id, waiting);
    // After bravo's run (the worker's job when the gate opened), alpha's resume came first.
    const after = calls.slice(mark).filter((t) => t !== 'bravo');
    expect(after[0]).toBe('alpha');
    expect(new Set(after)).toEqual(new Set(['alpha', 'charlie', 'delta', 'echo', 'foxtrot']));
  });
});
