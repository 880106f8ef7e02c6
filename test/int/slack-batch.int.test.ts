/**
 * Deciding several reviews at once, through Bolt's HTTP receiver, a real engine and Postgres, and
 * the fake Slack Web API: the Home tab lists five calls waiting for Bob with a checkbox each; one
 * changes after the tab was drawn (another reviewer's edit); Approve selected decides the four on
 * what the tab showed, each with its own audit entry, and refuses the changed one on its own,
 * saying why in the modal. `/signoff list` offers the same checkboxes.
 */
import { describe, expect, it } from 'vitest';
import { appHomeOpened, batchApproveClick, commandBody, postSigned } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const YAML = `workflows:
  mail:
    module: ./test/fixtures/hitl-graph.ts
    checkpoints:
      tool_call: { reviewers: [U0BOB, U0CAT, U0DAN], approvals: 2 }
`;

const file = slackPerFile('slack_batch', { yaml: YAML });
const { slack } = file;
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

describe('a batch of reviews', () => {
  it('five ticked in the Home tab, one edited meanwhile: four decided on what the tab showed, each audited, the changed one refused on its own', async () => {
    const tasks: string[] = [];
    for (let i = 1; i <= 5; i++) {
      await postSigned(file.events, commandBody(`mail one batch ${i}`));
      const thread = tsOf(await until('root', () => rootOf(`one batch ${i}`)));
      await until('card', () => cardsIn(thread)[0], 20_000);
      tasks.push((await engine().taskAt('slack', { channel: 'C0WORK', thread }))?.id ?? '');
    }
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

    const drawn = slack.callsOf('views.publish').length;
    await postSigned(file.events, appHomeOpened('U0BOB'), { json: true });
    const tab = await until('the Home tab with its checkboxes', () =>
      slack
        .callsOf('views.publish')
        .slice(drawn)
        .find((c) => (batchOf(c.view)?.length ?? 0) >= 5),
    );
    const options = batchOf(tab.view) ?? [];
    expect(options).toHaveLength(5);

    // After the tab was drawn, Dan edits the fifth call (counted towards its quorum): it changed.
    const fifth = reviews[4];
    await engine().decide({
      reviewId: fifth?.id ?? '',
      actor: { id: 'U0DAN' },
      action: 'edit',
      values: {
        args_0: JSON.stringify({ to: 'team@example.com', subject: 'Launch', body: 'We ship tomorrow.' }),
      },
    });

    const opened = slack.callsOf('views.open').length;
    await postSigned(
      file.events,
      batchApproveClick(
        'U0BOB',
        options.map((o) => o.value),
      ),
    );
    const outcome = await until('the outcome', () => slack.callsOf('views.open').slice(opened)[0], 20_000);
    const said = JSON.stringify(outcome.view);
    expect(said).toMatch(/Approved 4 of 5/);
    expect(said).toMatch(/Not decided.*out of date/);

    for (const [i, t] of tasks.entries()) {
      const decided = (await engine().reviews(t, 'decided'))[0];
      if (i < 4) expect(decided?.decision?.approvals?.map((a) => a.by)).toEqual(['U0CAT', 'U0BOB']);
      else expect(decided).toBeUndefined();
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
});
