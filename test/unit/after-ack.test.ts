/** Work after an ack waits for a lull in Slack's requests, on a clock the test moves. */
import { describe, expect, it } from 'vitest';
import { createAfterAck } from '../../src/slack/inbound/after-ack.js';
import { waitAside } from '../../src/slack/shared/limiter.js';
import { virtualClock } from '../helpers/virtual-clock.js';

const flush = () => new Promise((r) => setImmediate(r));

describe('work after an ack', () => {
  it('waits while requests keep arriving, then runs once none has come for quietMs', async () => {
    const clock = virtualClock();
    const afterAck = createAfterAck({ size: 2, quietMs: 300, maxWaitMs: 5000 }, clock);
    const started: number[] = [];
    afterAck.arrived();
    const done = afterAck.run(async () => started.push(clock.now()));
    // A request every 10 ms for 100 ms: never quiet for 300 ms.
    for (let i = 0; i < 10; i++) {
      await clock.advance(10);
      afterAck.arrived();
      expect(started).toEqual([]);
    }
    await clock.advance(299);
    expect(started).toEqual([]);
    await clock.advance(1);
    await done;
    expect(started).toEqual([100 + 300]);
  });

  it('runs at once when no request is arriving', async () => {
    const clock = virtualClock();
    const afterAck = createAfterAck({ size: 2, quietMs: 300, maxWaitMs: 5000 }, clock);
    const started: number[] = [];
    await afterAck.run(async () => started.push(clock.now()));
    expect(started).toEqual([0]);
  });

  it('does not wait longer than maxWaitMs under requests that never stop', async () => {
    const clock = virtualClock();
    const afterAck = createAfterAck({ size: 1, quietMs: 1000, maxWaitMs: 60 }, clock);
    const started: number[] = [];
    afterAck.arrived();
    const done = afterAck.run(async () => started.push(clock.now()));
    for (let i = 0; i < 40 && !started.length; i++) {
      await clock.advance(5);
      afterAck.arrived();
    }
    await done;
    expect(started).toEqual([60]);
  });

  it('runs at most `size` pieces of work at once, and says when all of it is done', async () => {
    const clock = virtualClock();
    const afterAck = createAfterAck({ size: 2, quietMs: 1, maxWaitMs: 100 }, clock);
    let running = 0;
    let most = 0;
    let finished = 0;
    const all = Array.from({ length: 6 }, () =>
      afterAck.run(async () => {
        running += 1;
        most = Math.max(most, running);
        await clock.sleep(10);
        running -= 1;
        finished += 1;
      }),
    );
    let idle = false;
    void afterAck.idle().then(() => {
      idle = true;
    });
    await clock.advance(20);
    expect(finished).toBe(4);
    expect(idle).toBe(false);
    await clock.advance(10);
    await Promise.all(all);
    await flush();
    expect([most, finished, idle]).toEqual([2, 6, true]);
    await afterAck.idle(); // nothing left: resolves at once
  });
  it("gives its slot to the next piece while it only waits (a Slack call's turn), and takes one back before going on", async () => {
    const clock = virtualClock();
    const afterAck = createAfterAck({ size: 1, quietMs: 1, maxWaitMs: 100 }, clock);
    const order: string[] = [];
    let running = 0;
    let most = 0;
    const piece = (name: string, waitMs: number) =>
      afterAck.run(async () => {
        running += 1;
        most = Math.max(most, running);
        order.push(`${name} starts`);
        running -= 1;
        // Two calls sent together, each waiting for its turn: one hand-over for both.
        await Promise.all([waitAside(() => clock.sleep(waitMs)), waitAside(() => clock.sleep(waitMs / 2))]);
        running += 1;
        most = Math.max(most, running);
        order.push(`${name} goes on`);
        await clock.sleep(5);
        running -= 1;
      });
    let done = false;
    const all = Promise.all([piece('root in a busy channel', 1000), piece('a click elsewhere', 0)]).then(
      () => {
        done = true;
      },
    );
    for (let i = 0; i < 300 && !done; i++) await clock.advance(10);
    await all;
    expect(order).toEqual([
      'root in a busy channel starts',
      'a click elsewhere starts',
      'a click elsewhere goes on',
      'root in a busy channel goes on',
    ]);
    // Never more than `size` at work: the waiting piece took its slot back before going on.
    expect(most).toBe(1);
  });
});
