/**
 * What waits on one person, read in SQL a page at a time (engine.reviewsFor): the rule the
 * statement applies is the one a click is checked by, and paging reaches every review, the newest
 * included, with counts that add up.
 */
import { describe, expect, it } from 'vitest';
import { refusal } from '../../src/engine/authorize.js';
import type { Actor, Task } from '../../src/engine/types.js';
import { testDirectory } from '../helpers/directory.js';
import { harnessPerFile } from '../helpers/harness.js';
import { seedWaiting } from '../helpers/seed-reviews.js';

const { directory, people } = testDirectory();
const file = harnessPerFile('waiting_reviews', () => ({ work: false, directories: { slack: directory } }));
const pool = () => file.h.db.pool;

/** Every page of what waits for `actor` in `places`, 20 at a time, as the Home tab's More reads them. */
async function allPages(actor: Actor, places: string[]) {
  const pages = [];
  let after: string | undefined;
  for (;;) {
    const page = await file.h.engine.reviewsFor('slack', actor, { places, limit: 20, after });
    pages.push(page);
    if (!page.more) return pages;
    after = page.items.at(-1)?.review.id;
  }
}

describe('who a review waits on', () => {
  it('the reviews read for a person are exactly those the click rule lets them decide, over every combination of reviewers, requester, outsiders, groups and approvals given; a group Slack did not answer for is named on the page', async () => {
    const names = ['anyone', 'requester', 'U0BOB', 'S0LEADS'];
    const cases = [];
    for (let mask = 1; mask < 1 << names.length; mask++) {
      const reviewers = names.filter((_, i) => mask & (1 << i));
      for (const allowExternal of [false, true])
        for (const requester of ['U0BOB', 'U0ANN'])
          for (const approvedBy of [[], ['U0BOB']])
            cases.push({ reviewers, allowExternal, requester, approvedBy });
    }
    const ids: { id: string; c: (typeof cases)[number] }[] = [];
    for (const [k, c] of cases.entries()) {
      const [id] = await seedWaiting(pool(), { prefix: `rule ${k}`, n: 1, channel: 'C0RULE', ...c });
      ids.push({ id: id as string, c });
    }
    const sizes = new Set<number>();
    const group = {
      yes: async () => true,
      no: async () => false,
      unknown: async () => Promise.reject(new Error('429')),
    };
    for (const [inGroup, answer] of Object.entries(group))
      for (const external of [undefined, true, 'unknown'] as const) {
        people.set('U0BOB', answer);
        const actor: Actor = { id: 'U0BOB', ...(external ? { external } : {}) };
        const page = await file.h.engine.reviewsFor('slack', actor, { places: ['C0RULE'], limit: 500 });
        const read = new Set(page.items.map((i) => i.review.id));
        // A group Slack did not answer for is named, so that nobody takes the count for all there is.
        expect(page.uncheckedGroups).toEqual(inGroup === 'unknown' ? ['S0LEADS'] : []);
        const resolved: Actor = { id: 'U0BOB', groups: inGroup === 'yes' ? ['S0LEADS'] : [], external };
        const expected = ids.filter(
          ({ c }) =>
            !c.approvedBy.includes('U0BOB') &&
            !refusal(
              { ...c, allowSelfApproval: true },
              { requester: c.requester } as Task,
              resolved,
              'revise',
            ),
        );
        expect([...read].sort(), `in group: ${inGroup}, external: ${external}`).toEqual(
          expected.map((e) => e.id).sort(),
        );
        sizes.add(read.size);
      }
    // The combinations tell people apart: no answer is all or nothing for everyone.
    expect(sizes.size).toBeGreaterThan(3);
  });

  it('106 waiting for one person: pages of 20 reach the newest, each counting 106 in all and what is left after it; other channels and other reviewers do not count', async () => {
    const mine = await seedWaiting(pool(), {
      prefix: 'for bob',
      n: 106,
      channel: 'C0WORK',
      reviewers: ['U0BOB'],
    });
    // Newer than all of Bob's, and not his: a channel he is not in, and reviews for someone else.
    await seedWaiting(pool(), {
      prefix: 'secret',
      n: 30,
      channel: 'G0PRIV',
      reviewers: ['U0BOB'],
      ageSeconds: 5,
    });
    await seedWaiting(pool(), {
      prefix: 'for cat',
      n: 20,
      channel: 'C0WORK',
      reviewers: ['U0CAT'],
      ageSeconds: 5,
    });
    const bob: Actor = { id: 'U0BOB' };

    const pages = await allPages(bob, ['C0WORK']);
    expect(pages.map((p) => p.items.length)).toEqual([20, 20, 20, 20, 20, 6]);
    expect(pages.map((p) => p.total)).toEqual([106, 106, 106, 106, 106, 106]);
    expect(pages.map((p) => p.more)).toEqual([86, 66, 46, 26, 6, 0]);
    expect(pages.flatMap((p) => p.items.map((i) => i.review.id))).toEqual(mine);
    expect(pages.at(-1)?.items.at(-1)?.task.text).toBe('for bob 106');

    // Cat sees his own 20, newest included, and none of Bob's.
    const cat = await file.h.engine.reviewsFor('slack', { id: 'U0CAT' }, { places: ['C0WORK'], limit: 20 });
    expect([cat.total, cat.more, cat.items.at(-1)?.task.text]).toEqual([20, 0, 'for cat 20']);
  });

  it('a review decided on the page a person saw skips nothing on the next page, and counts drop by one', async () => {
    const ids = await seedWaiting(pool(), {
      prefix: 'paging',
      n: 45,
      channel: 'C0PAGE',
      reviewers: ['U0DAN'],
    });
    const dan: Actor = { id: 'U0DAN' };
    const first = await file.h.engine.reviewsFor('slack', dan, { places: ['C0PAGE'], limit: 20 });
    // Someone decides the fifth and the last one shown while Dan reads.
    await pool().query(`UPDATE signoff.reviews SET status = 'decided' WHERE id = ANY($1)`, [
      [ids[4], ids[19]],
    ]);
    const next = await file.h.engine.reviewsFor('slack', dan, {
      places: ['C0PAGE'],
      limit: 20,
      after: first.items.at(-1)?.review.id,
    });
    expect(next.items.map((i) => i.review.id)).toEqual(ids.slice(20, 40));
    expect([next.total, next.more]).toEqual([43, 5]);
  });
});
