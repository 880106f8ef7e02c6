/** The seed workflows' main paths end to end through Slack (signed requests, fake Web API). */

import { describe, expect, it } from 'vitest';
import { slackTaskId } from '../../src/slack/shared/origin.js';
import {
  click,
  commandBody,
  postSigned,
  reviseSubmission,
  threadMessage,
} from '../helpers/slack-requests.js';
import { scriptedWith, slackPerFile, thinkUnlessAborted } from '../helpers/slack-service.js';
import { type Post, slackThreads, until } from '../helpers/slack-thread.js';

let slowCalls = 0;

const file = slackPerFile('slack_workflows', {
  options: {
    // Agents on a goal marked SLOW think for 30 s (abortably), except the first; after a
    // redirect (the goal names the one it replaces) they answer at once.
    modelFor: scriptedWith(async (_, input, options) => {
      const prompt = JSON.stringify(input.map((m) => m.content));
      if (prompt.includes('SLOW') && !prompt.includes('replaces the earlier goal') && ++slowCalls > 1) {
        await thinkUnlessAborted(30_000, options?.signal);
      }
      // Feedback that says so keeps the agents working a while (abortably).
      if (prompt.includes('take your time')) await thinkUnlessAborted(30_000, options?.signal);
    }),
  },
});
const { slack } = file;
const { posts, cardsIn, rootOf, tsOf, buttons, ephemeralsIn } = slackThreads(slack);

const inThread = (thread: string) => posts().filter((p) => p.thread_ts === thread);
const button = (card: Post, id: string) => buttons(card).find((b) => b.action_id === id);
const clickOn = (card: Post, thread: string, id: string, user = 'U0BOB') => {
  const pressed = button(card, id) as { value?: string; text?: { text?: string } } | undefined;
  return postSigned(
    file.events,
    click(user, id, pressed?.value ?? '', tsOf(card), thread, undefined, pressed?.text?.text),
  );
};

describe('goal-plan in Slack', () => {
  it('refine the goal three times in the thread, accept, modify the plan in the modal, approve: it runs', async () => {
    await postSigned(file.events, commandBody('goal-plan move the docs site to Astro'));
    const thread = tsOf(await until('root', () => rootOf('move the docs site to Astro')));
    let card = await until('goal card', () => cardsIn(thread)[0]);
    expect(JSON.parse(button(card, 'signoff_approve')?.value ?? '{}')).toHaveProperty('review');
    expect(JSON.stringify(buttons(card))).toContain('Accept goal');
    expect(button(card, 'signoff_reject')).toBeUndefined();

    for (const [i, feedback] of ['keep the old URLs', 'add search', 'launch in May'].entries()) {
      await postSigned(file.events, threadMessage('U0BOB', `revise: ${feedback}`, thread), { json: true });
      card = await until(`goal card ${i + 2}`, () => cardsIn(thread)[i + 1]);
      expect(JSON.stringify(card.blocks)).toContain(`Is this the goal? (round ${i + 2})`);
    }
    await clickOn(card, thread, 'signoff_approve');
    const plan = await until('plan card', () => cardsIn(thread)[4]);
    expect(JSON.stringify(buttons(plan))).toContain('Modify');

    await clickOn(plan, thread, 'signoff_revise');
    const opened = await until('modal', () => slack.callsOf('views.open').at(-1));
    const meta = (opened.view as { private_metadata: string }).private_metadata;
    await postSigned(file.events, reviseSubmission('U0BOB', meta, 'start with a pilot section'));
    const revised = await until('revised plan card', () => cardsIn(thread)[5]);
    expect(JSON.stringify(revised.blocks)).toContain('start with a pilot section');
    expect(JSON.stringify(revised.blocks)).toContain('What changed');

    await clickOn(revised, thread, 'signoff_approve');
    await until('root says done', () =>
      slack.callsOf('chat.update').find((u) => u.ts === thread && JSON.stringify(u.blocks).includes('Done')),
    );
    const executor = posts().filter(
      (p) => p.thread_ts === thread && (p as unknown as { username?: string }).username === 'Executor',
    );
    expect(executor.length).toBeGreaterThanOrEqual(4);
    expect(cardsIn(thread)).toHaveLength(6);
    expect(slack.refusals).toEqual([]);
  });

  it('rejecting the plan ends the task as rejected', async () => {
    await postSigned(file.events, commandBody('goal-plan rewrite the CLI in Go'));
    const thread = tsOf(await until('root', () => rootOf('rewrite the CLI in Go')));
    await clickOn(await until('goal card', () => cardsIn(thread)[0]), thread, 'signoff_approve');
    await clickOn(await until('plan card', () => cardsIn(thread)[1]), thread, 'signoff_reject');
    await until('root says rejected', () =>
      slack
        .callsOf('chat.update')
        .find((u) => u.ts === thread && JSON.stringify(u.blocks).includes('Rejected')),
    );
  });
});

describe('redirect in Slack', () => {
  it('a reply while the agents work redirects the task: the thread says so and they start over', async () => {
    await postSigned(file.events, commandBody('pair SLOW write the onboarding guide'));
    const thread = tsOf(await until('root', () => rootOf('write the onboarding guide')));
    await until('the first agent answered', () =>
      posts().find((p) => p.thread_ts === thread && p.text.includes('SLOW')),
    );
    await postSigned(
      file.events,
      threadMessage('U0ANN', '<@U0BOT> make it a one-page checklist instead', thread),
      {
        json: true,
      },
    );
    const said = await until('redirect announced', () =>
      posts().find((p) => p.thread_ts === thread && p.text.startsWith('Redirected')),
    );
    expect(JSON.stringify(said.blocks)).toContain('Dropped');
    await until('root shows the new goal', () =>
      slack
        .callsOf('chat.update')
        .find((u) => u.ts === thread && JSON.stringify(u.blocks).includes('one-page checklist')),
    );
    const card = await until('review of the new goal', () => cardsIn(thread)[0]);
    expect(JSON.stringify(card.blocks)).toContain('one-page checklist');
    // The second agent's answer on the old goal was cut off and never posted.
    expect(posts().filter((p) => p.thread_ts === thread && p.text.includes('SLOW'))).toHaveLength(1);
  });

  it('words addressed to the bot while a review waited, read only once it was decided and the agents work, redirect nothing: their author is told they came before the decision', async () => {
    await postSigned(file.events, commandBody('pair write the release FAQ'));
    const thread = tsOf(await until('root', () => rootOf('write the release FAQ')));
    await until('review card', () => cardsIn(thread)[0], 20_000);
    // Ann writes to the bot at the card; Slack delivers it only after Bob's revise was recorded
    // (a retried event, a busy listener): its ts is when she wrote it.
    const words = '<@U0BOT> make it a one-page checklist instead';
    const ts = slack.said('C0WORK', 'U0ANN', words, thread);
    await postSigned(file.events, threadMessage('U0BOB', 'revise: take your time, add the dates', thread), {
      json: true,
    });
    const taskId = slackTaskId({ channel: 'C0WORK', ts: thread });
    await until('the agents at work again', async () =>
      (await file.service.signoff.engine.getTask(taskId))?.status === 'working' ? true : undefined,
    );
    await postSigned(file.events, threadMessage('U0ANN', words, thread, { ts }), { json: true });
    const told = await until('Ann told', () => ephemeralsIn(thread, 'U0ANN')[0]);
    expect(told.text).toContain('Nothing was recorded: you wrote this before the review "');
    expect(told.text).toContain('was decided, and your words were read only after');
    await file.service.settled();
    expect(posts().filter((p) => p.thread_ts === thread && p.text.startsWith('Redirected'))).toEqual([]);
    expect((await file.service.signoff.engine.getTask(taskId))?.text).toBe('write the release FAQ');
    await file.service.signoff.engine.cancel(taskId, { id: 'U0ANN' });
  });

  it('a colleague\'s "+1" and the requester\'s chat change nothing; the requester\'s "redirect:", also sent to the channel and sent twice by Slack, redirects once', async () => {
    await postSigned(file.events, commandBody('pair SLOW plan the team offsite'));
    const thread = tsOf(await until('root', () => rootOf('plan the team offsite')));
    const taskId = slackTaskId({ channel: 'C0WORK', ts: thread });
    await until('agents working', async () =>
      (await file.service.signoff.engine.getTask(taskId))?.status === 'working' ? true : undefined,
    );
    const claimed = async () =>
      Number(
        (
          await file.service.signoff.db.pool.query(
            `SELECT count(*) AS n FROM signoff.slack_requests WHERE key LIKE 'event:%'`,
          )
        ).rows[0].n,
      );
    const before = await claimed();
    await postSigned(file.events, threadMessage('U0BOB', '+1', thread), { json: true });
    await postSigned(file.events, threadMessage('U0ANN', 'sounds good, thanks', thread), { json: true });
    await postSigned(file.events, threadMessage('U0BOB', '<@U0BOT> make it a hackathon', thread), {
      json: true,
    });
    // All three were read (each claims its event) before the requester's own redirect is sent.
    await until('the replies were read', async () => ((await claimed()) >= before + 3 ? true : undefined));
    const redirect = threadMessage('U0ANN', 'redirect: plan a one-day retreat', thread, { broadcast: true });
    await postSigned(file.events, redirect, { json: true });
    await postSigned(file.events, redirect, { json: true });
    await until('review of the new goal', () => cardsIn(thread)[0]);

    const task = await file.service.signoff.engine.getTask(taskId);
    expect(task?.text).toBe('plan a one-day retreat');
    expect(task?.generation).toBe(1);
    expect(task?.abandonedGoals.map((g) => g.text)).toEqual(['SLOW plan the team offsite']);
    expect(inThread(thread).filter((p) => p.text.startsWith('Redirected'))).toHaveLength(1);
    // Bob addressed the bot but may not redirect (the requester only, by default): he is told.
    const told = slack
      .callsOf('chat.postEphemeral')
      .filter((e) => e.user === 'U0BOB' && e.thread_ts === thread);
    expect(told.map((e) => e.text)).toEqual([
      'Sorry, only the person who started this task can redirect it.',
    ]);
    expect(
      slack.callsOf('chat.postEphemeral').filter((e) => e.user === 'U0ANN' && e.thread_ts === thread),
    ).toEqual([]);
  });
});

describe('proposal in Slack', () => {
  it('a query typed in "Use my query" (its box asks for the query, not a change) overrides the generated one; parallel reviews; stops at the revision limit', async () => {
    await postSigned(file.events, commandBody('proposal solar microgrids'));
    const thread = tsOf(await until('root', () => rootOf('solar microgrids')));
    const query = await until('query card', () => cardsIn(thread)[0]);
    expect(JSON.stringify(buttons(query))).toContain('Use my query');
    const from = slack.callsOf('views.open').length;
    await clickOn(query, thread, 'signoff_revise');
    const opened = await until('the query modal', () => slack.callsOf('views.open')[from]);
    const view = opened.view as { title: { text: string }; private_metadata: string; blocks: unknown[] };
    expect(view.title.text).toBe('Use my query');
    expect(JSON.stringify(view.blocks)).toContain('The query to search instead');
    expect(JSON.stringify(view.blocks)).not.toContain('What should change?');
    await postSigned(
      file.events,
      reviseSubmission('U0BOB', view.private_metadata, 'microgrid battery sizing'),
    );
    const search = await until('search in the thread', () =>
      inThread(thread).find((p) => p.text.includes('Search:')),
    );
    expect(search.text).toContain('"microgrid battery sizing"');
    expect(search.text).toContain('No documents in the collection "docs"');

    const insight = await until('insight card', () => cardsIn(thread)[1]);
    expect(JSON.stringify(buttons(insight))).toContain('Search more');
    await clickOn(insight, thread, 'signoff_approve');
    const first = await until('first draft review', () => cardsIn(thread)[2]);
    expect(JSON.stringify(first.blocks)).toContain('Review the proposal (draft 1)');
    const by = (agent: string) =>
      inThread(thread).filter((p) => (p as unknown as { username?: string }).username === agent);
    expect(by('Novelty reviewer')).toHaveLength(1);
    expect(by('Feasibility reviewer')).toHaveLength(1);

    await postSigned(file.events, threadMessage('U0BOB', 'revise: cut the budget', thread), { json: true });
    const second = await until('second draft review', () => cardsIn(thread)[3]);
    expect(JSON.stringify(second.blocks)).toContain('Review the proposal (draft 2)');
    expect(by('Novelty reviewer')).toHaveLength(2);
    await postSigned(file.events, threadMessage('U0BOB', 'revise: add a pilot', thread), { json: true });
    const end = await until('root says stopped at the limit', () =>
      slack
        .callsOf('chat.update')
        .find((u) => u.ts === thread && JSON.stringify(u.blocks).includes('revision limit')),
    );
    expect(JSON.stringify(end.blocks)).toContain('Stopped without approval');
    expect(JSON.stringify(end.blocks)).not.toContain('Done');
    expect(cardsIn(thread)).toHaveLength(4);
  });

  it('a query searched before, typed in "Use my query", is refused in the modal itself (the words kept to change), and nothing is recorded', async () => {
    await postSigned(file.events, commandBody('proposal river turbines'));
    const thread = tsOf(await until('root', () => rootOf('river turbines')));
    const useMyQuery = async (card: Post, words: string) => {
      const from = slack.callsOf('views.open').length;
      await clickOn(card, thread, 'signoff_revise');
      const opened = await until('the query modal', () => slack.callsOf('views.open')[from]);
      const meta = (opened.view as { private_metadata: string }).private_metadata;
      return postSigned(file.events, reviseSubmission('U0BOB', meta, words));
    };
    expect(
      (await useMyQuery(await until('query card', () => cardsIn(thread)[0]), 'turbine siting')).body,
    ).toBe('');
    const insight = await until('insight card', () => cardsIn(thread)[1]);
    await clickOn(insight, thread, 'signoff_reject'); // "Search more"
    const again = await until('second query card', () => cardsIn(thread)[2]);

    const refused = await useMyQuery(again, '  Turbine   SITING ');
    expect(JSON.parse(refused.body)).toEqual({
      response_action: 'errors',
      errors: {
        feedback:
          'Nothing was recorded: "Turbine   SITING" was searched before, so it would find nothing new; type another query, or continue.',
      },
    });
    const task = (await file.service.signoff.engine.listTasks({ surface: 'slack' })).find(
      (t) => t.text === 'river turbines',
    );
    // The query review still waits, as it was: no decision recorded on it.
    const pending = await file.service.signoff.engine.reviews(task?.id ?? '', 'pending');
    expect(pending.map((r) => [r.id, r.decision, r.decidedBy])).toEqual([[expect.any(String), null, null]]);

    expect((await useMyQuery(again, 'fish-safe turbine design')).body).toBe('');
    const searches = await until('the second search', () => {
      const found = inThread(thread).filter((p) => p.text.includes('Search:'));
      return found.length >= 2 ? found : undefined;
    });
    expect(searches[0]?.text).toContain('"turbine siting"');
    expect(searches[1]?.text).toContain('"fish-safe turbine design"');
  });
});
