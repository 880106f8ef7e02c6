/**
 * The runs under way in a process and their stopping (src/engine/run-aborts.ts): an abort that
 * comes before its run registers (the run read its task just before a cancel) still stops it.
 */
import { describe, expect, it } from 'vitest';
import { createRunAborts } from '../../src/engine/run-aborts.js';
import { RunStopped } from '../../src/engine/run-endings.js';

describe('the runs under way in a process', () => {
  it('a cancel that came before its run registered stops that run as it registers; a minute later it stops nothing', () => {
    let clock = 0;
    const runs = createRunAborts(() => clock);
    runs.abort('t1');
    const run = runs.register('t1', 0);
    expect(run.controller.signal.aborted).toBe(true);
    run.done();
    expect(runs.running()).toEqual([]);
    runs.abort('t2');
    clock += 60_001;
    expect(runs.register('t2', 0).controller.signal.aborted).toBe(false);
  });

  it('a check of the rows (underWay) stops only a run under way: a failed task retried the next moment runs', () => {
    const runs = createRunAborts(() => 0);
    runs.abort('t1', undefined, true);
    expect(runs.register('t1', 0).controller.signal.aborted).toBe(false);
    const older = runs.register('t2', 0);
    const newer = runs.register('t2', 1);
    // The older run's late end leaves the newer one registered.
    older.done();
    expect(runs.running()).toContain('t2');
    runs.abort('t2', undefined, true);
    expect(newer.controller.signal.aborted).toBe(true);
  });

  it("a redirect's early abort stops a run of an older generation only", () => {
    const runs = createRunAborts(() => 0);
    runs.abort('t1', 2);
    expect(runs.register('t1', 2).controller.signal.aborted).toBe(false);
    runs.abort('t3', 2);
    expect(runs.register('t3', 1).controller.signal.aborted).toBe(true);
  });

  it('aborts a run under way by its generation, and stops every run once the process stops', () => {
    const runs = createRunAborts(() => 0);
    const a = runs.register('a', 1);
    const b = runs.register('b', 0);
    runs.abort('a', 1);
    expect(a.controller.signal.aborted).toBe(false);
    runs.abort('a', 2);
    expect(a.controller.signal.aborted).toBe(true);
    expect(runs.stop().sort()).toEqual(['a', 'b']);
    expect(b.controller.signal.reason).toBeInstanceOf(RunStopped);
    expect(runs.stopping()).toBe(true);
    expect(runs.register('c', 0).controller.signal.reason).toBeInstanceOf(RunStopped);
  });
});
