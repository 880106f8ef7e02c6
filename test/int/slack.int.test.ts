/**
 * The Slack surface end to end: signed requests to Bolt's real HTTP receiver, a real engine and
 * Postgres, and a fake of Slack's Web API that answers like Slack.
 */
import { describe, expect, it } from 'vitest';
import { databaseDown as dropConnections } from '../helpers/database.js';
import {
  click,
  commandBody,
  postSigned,
  reviseSubmission,
  threadMessage,
} from '../helpers/slack-requests.js';
import { slackPerFile, sweepStarts } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const file = slackPerFile('slack', {
  yaml: 'workflows:\n  pair:\n    maxIterations: 1\n    checkpoints:\n      review:\n        reviewers: [anyone]\n  specialist:\n    checkpoints:\n      review:\n        reviewers: [U0BOB]\n',
});
const { slack } = file;
const { posts, cardsIn, rootOf, tsOf, buttons } = slackThreads(slack);

async function startTask(text: string, user = 'U0ANN') {
  const res = await postSigned(file.events, commandBody(text, user));
  expect(res.status).toBe(200);
  const root = await until(`root message for ${text}`, () => rootOf(text.split(' ').slice(1).join(' ')));
  const thread = tsOf(root);
  const card = await until('review card', () => cardsIn(thread)[0]);
  return { root, thread, card, cardTs: tsOf(card) };
}

const databaseDown = () => dropConnections(file.db.url);

describe('Slack surface', () => {
  it('GET /healthz answers 200 once ready', async () => {
    const res = await fetch(`http://127.0.0.1:${file.service.port}/healthz`);
    expect(res.status).toBe(200);
  });

  it('start → agents in the thread → card → approve → card and root updated', async () => {
    const { thread, card, cardTs } = await startTask('pair write a haiku about ledgers');
    const agentPosts = posts().filter(
      (p) => p.thread_ts === thread && (p as unknown as { username?: string }).username === 'Author',
    );
    expect(agentPosts.length).toBe(1);
    const approve = buttons(card).find((b) => b.action_id === 'signoff_approve');
    const res = await postSigned(
      file.events,
      click('U0BOB', 'signoff_approve', approve?.value ?? '', cardTs, thread),
    );
    expect(res.status).toBe(200);
    const updated = await until('card update', () =>
      slack
        .callsOf('chat.update')
        .find((u) => u.ts === cardTs && JSON.stringify(u.blocks).includes('Approved by <@U0BOB>')),
    );
    expect(JSON.stringify(updated.blocks)).not.toContain('signoff_approve');
    await until('root says done', () =>
      slack.callsOf('chat.update').find((u) => u.ts === thread && JSON.stringify(u.blocks).includes('Done')),
    );
  });

  it('reject → the card says who rejected, the root says Rejected, the task ends', async () => {
    const { root, thread, card, cardTs } = await startTask('pair rename every table');
    const reject = buttons(card).find((b) => b.action_id === 'signoff_reject');
    expect(JSON.stringify(reject)).toContain('"confirm"');
    await postSigned(file.events, click('U0BOB', 'signoff_reject', reject?.value ?? '', cardTs, thread));
    const updated = await until('card update', () =>
      slack.callsOf('chat.update').find((u) => u.ts === cardTs),
    );
    expect(JSON.stringify(updated.blocks)).toContain('Rejected by <@U0BOB>');
    expect(JSON.stringify(updated.blocks)).not.toContain('signoff_approve');
    await until('root says rejected', () =>
      slack
        .callsOf('chat.update')
        .find((u) => u.ts === tsOf(root) && JSON.stringify(u.blocks).includes('Rejected')),
    );
    const task = (await file.service.signoff.engine.listTasks()).find((t) => t.text === 'rename every table');
    expect(task?.status).toBe('rejected');
  });

  it('revise through the modal → round 2 → approve', async () => {
    const { thread, card, cardTs } = await startTask('pair name our new product');
    const revise = buttons(card).find((b) => b.action_id === 'signoff_revise');
    await postSigned(file.events, click('U0ANN', 'signoff_revise', revise?.value ?? '', cardTs, thread));
    const opened = await until('views.open', () => slack.callsOf('views.open').at(-1));
    const meta = (opened.view as { private_metadata: string }).private_metadata;
    const empty = await postSigned(file.events, reviseSubmission('U0ANN', meta, '   '));
    expect(JSON.parse(empty.body)).toEqual({
      response_action: 'errors',
      errors: { feedback: 'Say what should change: the feedback is empty.' },
    });
    await postSigned(file.events, reviseSubmission('U0ANN', meta, 'shorter, please'));
    const second = await until('round 2 card', () => cardsIn(thread)[1]);
    expect(JSON.stringify(second.blocks)).toContain("Review the agents' work (cycle 2)");
    // The pair's rounds are cycles: the card does not call the same one "Round 2" as well.
    expect(JSON.stringify(second.blocks)).not.toContain('Round 2');
    expect(JSON.stringify(slack.callsOf('chat.update').find((u) => u.ts === cardTs)?.blocks)).toContain(
      'shorter, please',
    );
  });

  it('two people approving at once: one decision', async () => {
    const { thread, card, cardTs } = await startTask('pair plan the offsite');
    const value = buttons(card).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
    await Promise.all([
      postSigned(file.events, click('U0BOB', 'signoff_approve', value, cardTs, thread)),
      postSigned(file.events, click('U0CAT', 'signoff_approve', value, cardTs, thread)),
    ]);
    await until('root says done', () =>
      slack.callsOf('chat.update').find((u) => u.ts === thread && JSON.stringify(u.blocks).includes('Done')),
    );
    const refused = await until('the loser told', () =>
      slack.callsOf('chat.postEphemeral').find((e) => String(e.text).includes('already decided')),
    );
    expect(['U0BOB', 'U0CAT']).toContain(refused.user);
    const rows = await file.service.signoff.db.pool.query(
      `SELECT count(*)::int AS n FROM signoff.audit WHERE action = 'approve' AND task_id LIKE $1`,
      [`%${thread}`],
    );
    expect(rows.rows[0].n).toBe(1);
  });

  it('refuses forged signatures and stale timestamps with 401', async () => {
    expect((await postSigned(file.events, commandBody('pair x'), { secret: 'wrong' })).status).toBe(401);
    expect(
      (
        await postSigned(file.events, commandBody('pair x'), {
          timestamp: Math.floor(Date.now() / 1000) - 600,
        })
      ).status,
    ).toBe(401);
  });

  it('unknown workflow (a typo: the name it is close to), or empty task: an ephemeral answer, nothing posted', async () => {
    const before = posts().length;
    const unknown = await postSigned(file.events, commandBody('nonesuch do it'));
    expect(JSON.parse(unknown.body)).toMatchObject({ response_type: 'ephemeral' });
    expect(JSON.parse(unknown.body).text).toContain(
      'There is no workflow "nonesuch". Try one of: pair, specialist, goal-plan, proposal, ask.',
    );
    const typo = await postSigned(file.events, commandBody('pairr do it'));
    expect(JSON.parse(typo.body).text).toContain(
      'There is no workflow "pairr" (did you mean pair?). Try one of:',
    );
    const empty = await postSigned(file.events, commandBody('pair'));
    expect(JSON.parse(empty.body).text).toContain("Describe the task after the workflow's name");
    await file.service.settled();
    expect(posts().length).toBe(before);
  });

  it('tampered button values and non-reviewers change nothing and get a sentence', async () => {
    const { thread, card, cardTs } = await startTask('specialist reconcile invoices', 'U0ANN');
    const value = buttons(card).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
    // One click at a time, each answered before the next (answers come after the ack, each on
    // its own): which click got which sentence.
    const toldEve = () => slack.callsOf('chat.postEphemeral').filter((x) => x.user === 'U0EVE');
    const answerTo = async (sent: string, ts: string) => {
      const before = toldEve().length;
      await postSigned(file.events, click('U0EVE', 'signoff_approve', sent, ts, thread));
      return (await until('its sentence', () => toldEve()[before])).text;
    };
    // A value that names no review; a real one from another message; a real one from a non-reviewer.
    expect(await answerTo(JSON.stringify({ review: 'nope', task: 'x' }), cardTs)).toBe(
      'That button does not belong to a review here; nothing was changed.',
    );
    expect(await answerTo(value, '1.000')).toBe(
      'That button does not belong to a review here; nothing was changed.',
    );
    expect(await answerTo(value, cardTs)).toBe('Sorry, you are not a reviewer for this step.');
    const task = (await file.service.signoff.engine.listTasks({ surface: 'slack' })).find(
      (t) => t.text === 'reconcile invoices',
    );
    expect(task?.status).toBe('waiting');
  });

  it('a click on a card whose content is not what the review shows is refused with a sentence, and the card is redrawn', async () => {
    const { thread, card, cardTs } = await startTask('pair price the add-on', 'U0ANN');
    const value = JSON.parse(buttons(card).find((b) => b.action_id === 'signoff_approve')?.value ?? '{}');
    const stale = JSON.stringify({ ...value, h: 'an-older-content' });
    await postSigned(file.events, click('U0BOB', 'signoff_approve', stale, cardTs, thread));
    const told = await until('a sentence', () =>
      slack
        .callsOf('chat.postEphemeral')
        .find((e) => e.user === 'U0BOB' && String(e.text).includes('out of date')),
    );
    expect(told.text).toContain('Nothing was recorded');
    const redrawn = await until('the card redrawn', () =>
      slack.callsOf('chat.update').find((u) => u.ts === cardTs),
    );
    expect(JSON.stringify(redrawn.blocks)).toContain(value.h);
    const task = (await file.service.signoff.engine.listTasks({ surface: 'slack' })).find(
      (t) => t.text === 'price the add-on',
    );
    expect(task?.status).toBe('waiting');
  });

  it('a retried slash command starts one task; <!channel> in a task is never posted raw', async () => {
    const body = commandBody('pair announce <!channel> the launch');
    await postSigned(file.events, body);
    await postSigned(file.events, body, {
      headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' },
    });
    await until('root', () => rootOf('the launch'));
    // Both requests handled (their work after the ack done): the retry started nothing.
    await file.service.settled();
    expect(posts().filter((p) => !p.thread_ts && p.text.includes('the launch'))).toHaveLength(1);
    for (const call of slack.calls) expect(JSON.stringify(call.args)).not.toContain('<!channel>');
  });

  it('a reply addressed to the bot ("revise:") while a review waits counts as Revise from that person', async () => {
    const { thread, cardTs } = await startTask('pair draft the release notes');
    const res = await postSigned(file.events, threadMessage('U0DAN', 'revise: mention the new API', thread), {
      json: true,
    });
    expect(res.status).toBe(200);
    const second = await until('round 2 card', () => cardsIn(thread)[1]);
    expect(JSON.stringify(second.blocks)).toContain("Review the agents' work (cycle 2)");
    const updated = slack.callsOf('chat.update').find((u) => u.ts === cardTs);
    expect(JSON.stringify(updated?.blocks)).toContain('Revision asked by <@U0DAN>');
    expect(JSON.stringify(updated?.blocks)).toContain('mention the new API');
  });

  it('waits out a 429 on a post and posts the card once', async () => {
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const res = await postSigned(file.events, commandBody('pair slow down please'));
    expect(res.status).toBe(200);
    // The root message took the 429 (first post after the command) and was retried after 1 s.
    const root = await until('root after 429', () => rootOf('slow down please'), 20_000);
    const thread = tsOf(root);
    await until('card', () => cardsIn(thread)[0], 20_000);
    expect(cardsIn(thread)).toHaveLength(1);
    expect(slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.failed)).toHaveLength(1);
  });

  it('database down at the click: a sentence, and the card stays as it was', async () => {
    const { thread, card, cardTs } = await startTask('pair check the numbers');
    const value = buttons(card).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
    const updatesBefore = slack.callsOf('chat.update').filter((u) => u.ts === cardTs).length;
    const restore = await databaseDown();
    try {
      await postSigned(file.events, click('U0BOB', 'signoff_approve', value, cardTs, thread));
      const told = await until('a sentence', () =>
        slack
          .callsOf('chat.postEphemeral')
          .find((e) => e.user === 'U0BOB' && String(e.text).includes('could not record')),
      );
      expect(told.text).toContain('Please try again');
      expect((await fetch(`http://127.0.0.1:${file.service.port}/healthz`)).status).toBe(503);
    } finally {
      await restore();
    }
    expect(slack.callsOf('chat.update').filter((u) => u.ts === cardTs)).toHaveLength(updatesBefore);
    // With the database back, the same click goes through.
    await postSigned(file.events, click('U0BOB', 'signoff_approve', value, cardTs, thread));
    await until('approved', () =>
      slack
        .callsOf('chat.update')
        .find((u) => u.ts === cardTs && JSON.stringify(u.blocks).includes('Approved by <@U0BOB>')),
    );
  });

  it('database down after the root message is posted: the person is told it starts by itself, and it does', async () => {
    const held = slack.holdNext('chat.postMessage');
    await postSigned(
      file.events,
      commandBody('pair count the votes', 'U0ANN', {
        response_url: slack.responseUrl('C0WORK', '', 'U0ANN'),
      }),
    );
    await held.reached;
    const restore = await databaseDown();
    try {
      held.release();
      // Through the command's response URL (see respond.ts).
      await until('a sentence', () =>
        slack.ephemerals.find((e) => e.user === 'U0ANN' && String(e.text).includes('starts by itself')),
      );
    } finally {
      await restore();
    }
    // The sweep of a web process finishes the start (here now, instead of a minute later).
    expect(await sweepStarts(file.service, slack)).toBe(1);
    const root = await until('the root', () => rootOf('count the votes'));
    const card = await until('its card', () => cardsIn(tsOf(root))[0]);
    expect(card).toBeTruthy();
    expect(slack.messages.filter((m) => !m.thread_ts && m.text?.includes('count the votes'))).toHaveLength(1);
  });

  it('a restart while a review waits: the reply and the click after it finish the task; long answers are split so Slack takes them', async () => {
    const { thread } = await startTask('pair survive a deploy');
    await file.restart({
      settings: {
        yaml: 'workflows:\n  pair:\n    maxIterations: 1\n',
        options: {
          // After the deploy the agents write at length: 30,000 characters each.
          modelFor: () =>
            ({
              invoke: async () => ({
                content: `# Report\n\n${'A long paragraph of findings. '.repeat(1000)}`,
              }),
            }) as never,
        },
      },
    });
    // The new process takes a reply on the card posted before the restart…
    await postSigned(file.events, threadMessage('U0BOB', 'revise: now in much more detail', thread), {
      json: true,
    });
    const second = await until('round 2 card after the restart', () => cardsIn(thread)[1], 20_000);
    const long = posts().filter(
      (p) => p.thread_ts === thread && JSON.stringify(p.blocks).includes('A long paragraph'),
    );
    expect(long.length).toBeGreaterThan(2);
    expect(slack.refusals).toEqual([]);
    // …and a click on the next card ends the task: the card and the root say so.
    const approve = buttons(second).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
    await postSigned(file.events, click('U0BOB', 'signoff_approve', approve, tsOf(second), thread));
    await until('card says approved', () =>
      slack
        .callsOf('chat.update')
        .find((u) => u.ts === tsOf(second) && JSON.stringify(u.blocks).includes('Approved by <@U0BOB>')),
    );
    await until('root says done', () =>
      slack.callsOf('chat.update').find((u) => u.ts === thread && JSON.stringify(u.blocks).includes('Done')),
    );
    const task = (await file.service.signoff.engine.listTasks({ surface: 'slack' })).find(
      (t) => t.text === 'survive a deploy',
    );
    expect(task?.status).toBe('done');
  });
});
