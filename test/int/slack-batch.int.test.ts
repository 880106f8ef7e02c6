/**
 * Deciding several reviews at once, through Bolt's HTTP receiver, a real engine and Postgres, and
 * the fake Slack Web API: the Home tab lists five reviews waiting for Bob with a checkbox each (a
 * tool call waiting too has none: it is decided on its card, where its arguments show); one is
 * decided by someone else after the tab was drawn; Approve selected decides the four on what the
 * tab showed, each with its own audit entry, and refuses the changed one on its own, saying why in
 * the modal. `/signoff list` offers the same checkboxes.
 */
import { WebClient } from '@slack/web-api';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createAfterAck } from '../../src/slack/inbound/after-ack.js';
import type { ListenerDeps } from '../../src/slack/inbound/deps.js';
import { createBatchDecision } from '../../src/slack/inbound/listeners/actions/batch.js';
import { createAudience } from '../../src/slack/shared/audience.js';
import { createDirectory } from '../../src/slack/shared/directory.js';
import { createPermalinks } from '../../src/slack/shared/permalinks.js';
import { createStandingStore } from '../../src/slack/shared/standing-store.js';
import { contentHash } from '../../src/workflows/protocol/content-hash.js';
import {
  appHomeOpened,
  batchApproveClick,
  commandBody,
  homeClick,
  postSigned,
} from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const YAML = `workflows:
  ask:
    checkpoints:
      review: { reviewers: [U0BOB, U0CAT, U0DAN], approvals: 2 }
  asks:
    module: ./test/fixtures/asks.ts
    checkpoints:
      review: { reviewers: [U0BOB] }
  mail:
    module: ./test/fixtures/hitl-graph.ts
    checkpoints:
      tool_call: { reviewers: [U0BOB] }
`;

const file = slackPerFile('slack_batch', { yaml: YAML });
const { slack } = file;
// A private channel of Bob's (set before any test: who is in which channel is kept a minute).
slack.members.G0PRIV = ['U0ANN', 'U0BOB', 'U0CAT'];
const { cardsIn, rootOf, tsOf } = slackThreads(slack);
const engine = () => file.service.signoff.engine;

type Checkbox = { value: string; text: { text: string } };
const batchOf = (view: unknown) => {
  const blocks = (
    view as { blocks: { block_id?: string; elements?: { type: string; options?: Checkbox[] }[] }[] }
  ).blocks;
  return blocks.find((b) => b.block_id === 'signoff_batch')?.elements?.find((e) => e.type === 'checkboxes')
    ?.options;
};

/** Bob opens his Home tab: the checkboxes of the first tab drawn whose checkboxes `ok` accepts. */
const homeCheckboxes = async (ok: (options: Checkbox[]) => boolean) => {
  const drawn = slack.callsOf('views.publish').length;
  await postSigned(file.events, appHomeOpened('U0BOB'), { json: true });
  const tab = await until('the Home tab with its checkboxes', () =>
    slack
      .callsOf('views.publish')
      .slice(drawn)
      .find((c) => ok(batchOf(c.view) ?? [])),
  );
  return batchOf(tab.view) ?? [];
};

describe('a batch of reviews', () => {
  it('five ticked in the Home tab, one decided by someone else meanwhile: four decided on what the tab showed, each audited, the changed one refused on its own', async () => {
    const tasks: string[] = [];
    for (let i = 1; i <= 5; i++) {
      await postSigned(file.events, commandBody(`ask Sign off batch item ${i}?`));
      const thread = tsOf(await until('root', () => rootOf(`batch item ${i}`)));
      await until('card', () => cardsIn(thread)[0], 20_000);
      tasks.push((await engine().taskAt('slack', { channel: 'C0WORK', thread }))?.id ?? '');
    }
    // A tool call waits for Bob too: it is left out of the checkboxes.
    await postSigned(file.events, commandBody('mail one batch call'));
    const call = tsOf(await until('root', () => rootOf('one batch call')));
    await until('card', () => cardsIn(call)[0], 20_000);
    // Cat approved each already (1 of 2): Bob's approval decides them.
    const reviews = await Promise.all(tasks.map(async (t) => (await engine().reviews(t, 'pending'))[0]));
    for (const r of reviews.slice(0, 4))
      await engine().decide({ reviewId: r?.id ?? '', actor: { id: 'U0CAT' }, action: 'approve' });

    // /signoff list offers the same checkboxes, one a review waiting for Bob.
    await postSigned(
      file.events,
      commandBody('list', 'U0BOB', { response_url: slack.responseUrl('C0WORK', '', 'U0BOB') }),
    );
    const list = await until('the list', () =>
      slack.ephemerals.find(
        (e) => e.user === 'U0BOB' && e.viaResponseUrl && /Waiting for your review/.test(String(e.text)),
      ),
    );
    expect(batchOf(list)).toHaveLength(5);

    const options = await homeCheckboxes((o) => o.length >= 5);
    expect(options).toHaveLength(5);

    // After the tab was drawn, Dan rejects the fifth: it changed.
    await engine().decide({ reviewId: reviews[4]?.id ?? '', actor: { id: 'U0DAN' }, action: 'reject' });

    const updated = slack.callsOf('views.update').length;
    await postSigned(
      file.events,
      batchApproveClick(
        'U0BOB',
        options.map((o) => o.value),
      ),
    );
    const outcome = await until(
      'the outcome',
      () =>
        slack
          .callsOf('views.update')
          .slice(updated)
          .find((c) => /Approved 4 of 5/.test(JSON.stringify(c.view))),
      20_000,
    );
    expect(JSON.stringify(outcome.view)).toMatch(
      /Not decided.*This review is closed. It was already decided \(reject\) by U0DAN/,
    );

    for (const [i, t] of tasks.entries()) {
      const decided = (await engine().reviews(t, 'decided'))[0];
      if (i < 4) expect(decided?.decision?.approvals?.map((a) => a.by)).toEqual(['U0CAT', 'U0BOB']);
      else expect(decided?.decidedBy).toBe('U0DAN');
    }
    const audit = await file.service.signoff.db.pool.query<{ review_id: string; action: string }>(
      `SELECT review_id, action FROM signoff.audit WHERE actor = 'U0BOB' ORDER BY id`,
    );
    expect(audit.rows.map((r) => r.action)).toEqual([
      'approve',
      'approve',
      'approve',
      'approve',
      'refused:approve',
    ]);
    expect(new Set(audit.rows.map((r) => r.review_id)).size).toBe(5);
  });

  it('a review whose content the list cannot show whole gets no box, and a box for it from elsewhere decides nothing; a short one is quoted whole above its box', async () => {
    const words = `Sign off the long item: ${'the rollout plan covers every region in turn. '.repeat(8)}and then it ends`;
    await postSigned(file.events, commandBody(`ask ${words}`));
    const thread = tsOf(await until('root', () => rootOf('Sign off the long item')));
    await until('card', () => cardsIn(thread)[0], 20_000);
    const task = (await engine().taskAt('slack', { channel: 'C0WORK', thread }))?.id ?? '';
    const [review] = await engine().reviews(task, 'pending');
    expect(review?.request.body.length).toBeGreaterThan(300);
    // Longer than a title, short enough to list: its words are its body, quoted under its line.
    const shortWords = `Sign off the short item: ${'ship the fix to every region today. '.repeat(5)}`;
    for (const ask of [shortWords, 'Sign off the other short item?']) {
      await postSigned(file.events, commandBody(`ask ${ask}`));
      const short = tsOf(await until('root', () => rootOf(ask.slice(0, 30))));
      await until('card', () => cardsIn(short)[0], 20_000);
    }

    const published = slack.callsOf('views.publish').length;
    const options = await homeCheckboxes((o) => o.filter((x) => /short item/.test(x.text.text)).length === 2);
    expect(options.some((o) => /long item/.test(o.text.text))).toBe(false);
    const tab = JSON.stringify(slack.callsOf('views.publish').slice(published).at(-1));
    expect(tab).not.toContain('and then it ends');
    expect(tab).toContain(`> ${shortWords.trim()}`);

    const updated = slack.callsOf('views.update').length;
    const value = `${review?.id}:${contentHash(review?.request as never)}`;
    await postSigned(file.events, batchApproveClick('U0BOB', [value]));
    const outcome = await until('the outcome', () =>
      slack
        .callsOf('views.update')
        .slice(updated)
        .find((c) => /None of the 1 was approved/.test(JSON.stringify(c.view))),
    );
    expect(JSON.stringify(outcome.view)).toContain('it asks more than a list shows');
    expect((await engine().reviews(task, 'pending'))[0]?.approvals).toEqual([]);
  });

  it('a ticked box this version cannot read is said to be out of date, never dropped in silence', async () => {
    const updated = slack.callsOf('views.update').length;
    await postSigned(file.events, batchApproveClick('U0BOB', ['a box from another version']));
    const outcome = await until('the outcome', () =>
      slack
        .callsOf('views.update')
        .slice(updated)
        .find((c) => /None of the 1 was approved/.test(JSON.stringify(c.view))),
    );
    expect(JSON.stringify(outcome.view)).toMatch(/their boxes are out of date. Open the list again/);
  });

  it('Slack takes no outcome modal from the Home tab (its trigger expired): what was decided is said in the app DM instead', async () => {
    const tasks: string[] = [];
    for (const name of ['first', 'second']) {
      await postSigned(file.events, commandBody(`ask Sign off the ${name} lone item?`));
      const thread = tsOf(await until('root', () => rootOf(`the ${name} lone item`)));
      await until('card', () => cardsIn(thread)[0], 20_000);
      const task = (await engine().taskAt('slack', { channel: 'C0WORK', thread }))?.id ?? '';
      const review = (await engine().reviews(task, 'pending'))[0];
      await engine().decide({ reviewId: review?.id ?? '', actor: { id: 'U0CAT' }, action: 'approve' });
      tasks.push(task);
    }
    const lone = (options: Checkbox[]) => options.filter((o) => /lone item/.test(o.text.text));
    const picked = lone(await homeCheckboxes((o) => lone(o).length === 2));
    slack.failNext('views.open', { error: 'expired_trigger_id' });
    await postSigned(
      file.events,
      batchApproveClick(
        'U0BOB',
        picked.map((o) => o.value),
      ),
    );
    const dm = await until(
      'the outcome in the DM',
      () =>
        slack
          .callsOf('chat.postMessage')
          .find((p) => p.channel === 'D0BOB' && /Approved 2 of 2/.test(String(p.text))),
      20_000,
    );
    expect(String(dm.text)).toMatch(/first lone item[\s\S]*second lone item/);
    for (const task of tasks) expect((await engine().reviews(task, 'decided'))[0]?.decidedBy).toBe('U0BOB');
  });

  it('a review whose Reject goes on instead of ending the task (Search more) gets no box, and Reject selected from elsewhere does not record it; one whose Approve has words of its own (Accept goal) gets its box', async () => {
    const tasks: string[] = [];
    for (const name of ['battery ageing', 'cell chemistry']) {
      await postSigned(file.events, commandBody(`asks labelled ${name}`));
      const thread = tsOf(await until('root', () => rootOf(`labelled ${name}`)));
      const card = await until('card', () => cardsIn(thread)[0], 20_000);
      expect(JSON.stringify(card.blocks)).toContain('Search more');
      tasks.push((await engine().taskAt('slack', { channel: 'C0WORK', thread }))?.id ?? '');
    }
    for (const name of ['first', 'second']) {
      await postSigned(file.events, commandBody(`asks worded the ${name} goal item`));
      const thread = tsOf(await until('root', () => rootOf(`the ${name} goal item`)));
      await until('card', () => cardsIn(thread)[0], 20_000);
    }
    const published = slack.callsOf('views.publish').length;
    const options = await homeCheckboxes((o) => o.filter((x) => /goal item/.test(x.text.text)).length === 2);
    expect(options.filter((o) => /labelled/.test(o.text.text))).toEqual([]);
    // Listed all the same, with its own words: it is decided on its card.
    expect(JSON.stringify(slack.callsOf('views.publish').slice(published).at(-1))).toContain(
      'The gap: labelled',
    );

    // Boxes for them from elsewhere (an older tab, another version): "Reject selected", whose
    // confirmation says the task ends, would record their "Search more", which goes on.
    const boxes = await Promise.all(
      tasks.map(async (t) => {
        const [review] = await engine().reviews(t, 'pending');
        return `${review?.id}:${contentHash(review?.request as never)}`;
      }),
    );
    const updated = slack.callsOf('views.update').length;
    await postSigned(
      file.events,
      homeClick('U0BOB', 'signoff_batch_reject', '', {
        signoff_batch: {
          signoff_batch_pick: { type: 'checkboxes', selected_options: boxes.map((value) => ({ value })) },
        },
      }),
    );
    const outcome = await until('the outcome', () =>
      slack
        .callsOf('views.update')
        .slice(updated)
        .find((c) => /None of the 2 was rejected/.test(JSON.stringify(c.view))),
    );
    expect(JSON.stringify(outcome.view)).toContain(
      'its Search more does not end the task; decide it on its card.',
    );
    for (const t of tasks) expect((await engine().reviews(t, 'pending')).length).toBe(1);
  });

  it('a review in a channel its reviewer has left since the tab was drawn is not decided from the tab: its box is refused on its own', async () => {
    const tasks: string[] = [];
    for (const name of ['first', 'second']) {
      const words = `Sign off the ${name} private item?`;
      await postSigned(file.events, commandBody(`asks ${words}`, 'U0ANN', { channel_id: 'G0PRIV' }));
      const thread = tsOf(await until('root', () => rootOf(`the ${name} private item`)));
      await until('card', () => cardsIn(thread)[0], 20_000);
      tasks.push((await engine().taskAt('slack', { channel: 'G0PRIV', thread }))?.id ?? '');
    }
    const mine = (options: Checkbox[]) => options.filter((o) => /private item/.test(o.text.text));
    const picked = mine(await homeCheckboxes((o) => mine(o).length === 2));
    // Bob leaves the channel; a minute later Slack's answer about him is asked again.
    slack.members.G0PRIV = ['U0ANN', 'U0CAT'];
    await file.service.signoff.db.pool.query(
      `DELETE FROM signoff.slack_user_channels WHERE user_id = 'U0BOB'`,
    );
    const updated = slack.callsOf('views.update').length;
    await postSigned(
      file.events,
      batchApproveClick(
        'U0BOB',
        picked.map((o) => o.value),
      ),
    );
    const outcome = await until('the outcome', () =>
      slack
        .callsOf('views.update')
        .slice(updated)
        .find((c) => /of 2:|None of the 2/.test(JSON.stringify(c.view))),
    );
    expect(JSON.stringify(outcome.view)).toContain('None of the 2 was approved');
    expect(JSON.stringify(outcome.view)).toContain('you are not in its channel now');
    for (const t of tasks) {
      expect((await engine().reviews(t, 'pending')).length).toBe(1);
      // In each task's audit, as a refused click on its card would be.
      const tried = [];
      for await (const e of engine().auditTrail({ taskId: t }))
        if (e.who === 'U0BOB') tried.push([e.action, e.result, e.code]);
      expect(tried).toEqual([['approve', 'refused', 'not_allowed']]);
    }
  });

  it('a review whose read loses its database connection (a real one, cut) is refused with what to do and said, not audited (no task is known); one that is no longer there is said so', async () => {
    await postSigned(file.events, commandBody('asks Sign off the unreadable item?'));
    const thread = tsOf(await until('root', () => rootOf('the unreadable item')));
    await until('card', () => cardsIn(thread)[0], 20_000);
    const task = (await engine().taskAt('slack', { channel: 'C0WORK', thread }))?.id ?? '';
    const [review] = await engine().reviews(task, 'pending');
    const box = `${review?.id}:${contentHash(review?.request as never)}`;

    // Every read of the reviews waits behind this lock; the one the click makes loses its
    // connection (as a restart of Postgres or a cut network does), and then the lock goes.
    const pool = file.service.signoff.db.pool;
    const locker = new pg.Client({ connectionString: file.db.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE signoff.reviews IN ACCESS EXCLUSIVE MODE');
    try {
      const updated = slack.callsOf('views.update').length;
      await postSigned(file.events, batchApproveClick('U0BOB', [box, 'rev-gone:0123456789abcdef']));
      const blocked = await until('the read of the review, waiting on the lock', async () => {
        const r = await pool.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%to_jsonb(r) AS r, to_jsonb(t) AS t%'`,
        );
        return r.rows.length === 1 ? r.rows[0]?.pid : undefined;
      });
      await locker.query('SELECT pg_terminate_backend($1)', [blocked]);
      await locker.query('ROLLBACK');
      const outcome = await until('the outcome', () =>
        slack
          .callsOf('views.update')
          .slice(updated)
          .find((c) => /None of the 2 was approved/.test(JSON.stringify(c.view))),
      );
      const said = JSON.stringify(outcome.view);
      expect(said).toContain(
        `• ${review?.id}: I could not read it just now (the database did not answer), so it was not decided. Tick it and click Approve selected again in a minute.`,
      );
      expect(said).toContain('• rev-gone: it is no longer there; nothing was decided.');
    } finally {
      await locker.end();
    }
    expect((await engine().reviews(task, 'pending')).length).toBe(1);
    const tried = [];
    for await (const e of engine().auditTrail({ taskId: task })) if (e.who === 'U0BOB') tried.push(e);
    expect(tried).toEqual([]);
  });

  it('a review that cannot be read for another reason than the database (its stored row does not read) is refused without blaming the database', async () => {
    await postSigned(file.events, commandBody('asks Sign off the garbled item?'));
    const thread = tsOf(await until('root', () => rootOf('the garbled item')));
    await until('card', () => cardsIn(thread)[0], 20_000);
    const task = (await engine().taskAt('slack', { channel: 'C0WORK', thread }))?.id ?? '';
    const [review] = await engine().reviews(task, 'pending');
    const box = `${review?.id}:${contentHash(review?.request as never)}`;
    const pool = file.service.signoff.db.pool;
    // A row another version wrote (or a hand's UPDATE): it is there, it answers, it does not read.
    await pool.query(`UPDATE signoff.reviews SET request = '{}' WHERE id = $1`, [review?.id]);
    try {
      const updated = slack.callsOf('views.update').length;
      await postSigned(file.events, batchApproveClick('U0BOB', [box]));
      const outcome = await until('the outcome', () =>
        slack
          .callsOf('views.update')
          .slice(updated)
          .find((c) => /None of the 1 was approved/.test(JSON.stringify(c.view))),
      );
      const said = JSON.stringify(outcome.view);
      expect(said).toContain(
        `• ${review?.id}: I could not read it (an error, logged for whoever runs signoff)`,
      );
      expect(said).not.toContain('the database did not answer');
    } finally {
      await pool.query('UPDATE signoff.reviews SET request = $2 WHERE id = $1', [
        review?.id,
        review?.request,
      ]);
    }
  });

  it("Slack's directory failing outright for one ticked review refuses only that one (directory_unavailable): the others are still decided and the person is told", async () => {
    const tasks: string[] = [];
    const boxes: string[] = [];
    for (const name of ['first', 'second']) {
      await postSigned(file.events, commandBody(`asks Sign off the ${name} asked item?`));
      const thread = tsOf(await until('root', () => rootOf(`the ${name} asked item`)));
      await until('card', () => cardsIn(thread)[0], 20_000);
      const task = (await engine().taskAt('slack', { channel: 'C0WORK', thread }))?.id ?? '';
      const [review] = await engine().reviews(task, 'pending');
      tasks.push(task);
      boxes.push(`${review?.id}:${contentHash(review?.request as never)}`);
    }
    // The listener as the service builds it, on the same engine, Postgres and (fake) Slack, but
    // with a directory that throws for the second review asked about instead of answering.
    const pool = file.service.signoff.db.pool;
    const logger = createLogger('silent');
    const client = new WebClient('xoxb-test', { slackApiUrl: slack.url });
    let asked = 0;
    const audience = createAudience({ client, logger });
    const deps: ListenerDeps = {
      engine: engine(),
      pool,
      logger,
      afterAck: createAfterAck({ size: 1, quietMs: 0, maxWaitMs: 0 }),
      audience: {
        ...audience,
        among: (user, places) =>
          ++asked === 2 ? Promise.reject(new Error('socket hang up')) : audience.among(user, places),
      },
      directory: createDirectory({ client, kept: createStandingStore(pool), logger }),
      permalinks: createPermalinks({ client, pool, logger }),
    };
    const approve = createBatchDecision(deps, 'approve', { refresh: async () => undefined } as never);
    const responded = slack.ephemerals.length;
    await approve({
      ack: async () => undefined,
      client,
      body: {
        type: 'block_actions',
        user: { id: 'U0BOB', team_id: 'T0TEAM' },
        trigger_id: 'unused',
        response_url: slack.responseUrl('C0WORK', '', 'U0BOB'),
        state: {
          values: {
            signoff_batch: {
              signoff_batch_pick: { type: 'checkboxes', selected_options: boxes.map((value) => ({ value })) },
            },
          },
        },
        actions: [],
      },
    } as never);
    const outcome = await until('the outcome', () =>
      slack.ephemerals.slice(responded).find((e) => /Approved 1 of 2/.test(String(e.text))),
    );
    expect(String(outcome.text)).toContain(
      'Not decided* (each on its own):\n• Is this right?: Slack did not say just now whether you are in its channel; try again in a minute.',
    );
    expect((await engine().reviews(tasks[0] ?? '', 'decided'))[0]?.decidedBy).toBe('U0BOB');
    expect((await engine().reviews(tasks[1] ?? '', 'pending')).length).toBe(1);
    const tried = [];
    for await (const e of engine().auditTrail({ taskId: tasks[1] }))
      if (e.who === 'U0BOB') tried.push([e.action, e.result, e.code]);
    expect(tried).toEqual([['approve', 'refused', 'directory_unavailable']]);
  });
});
