/**
 * Who may decide, as Slack tells signoff who someone is: a named reviewer decides while a user
 * group's lookup fails, and the group's members are told the true reason; one lookup of a group
 * serves every click and view for a minute; people from another organization (Slack Connect) and
 * guests decide only where the checkpoint allows them; while Slack does not answer who someone
 * is, a reviewer it answered for before still decides.
 */
import { describe, expect, it } from 'vitest';
import { COULD_NOT_RECORD } from '../../src/slack/inbound/deps.js';
import { testClock } from '../helpers/harness.js';
import {
  appHomeOpened,
  click,
  commandBody,
  ephemeralClick,
  fromTeam,
  postSigned,
  threadMessage,
} from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { type Post, slackThreads, until } from '../helpers/slack-thread.js';

// No review here has a timeout: moving the clock only ages what the directory keeps.
const clock = testClock();

const YAML = `workflows:
  pair:
    maxIterations: 1
    checkpoints:
      review:
        reviewers: [U0BOB, S0LEADS]
  specialist:
    checkpoints:
      review:
        reviewers: [anyone]
  goal-plan:
    checkpoints:
      goal:
        reviewers: [anyone]
        allowExternal: true
`;

const OUTSIDERS = "people from outside this workspace's organization and guests cannot decide this step";

const file = slackPerFile('slack_rights', {
  yaml: YAML,
  options: { clock },
  workspace: (slack) => {
    slack.groups = { S0LEADS: ['U0CAT'] };
    // Everyone who clicks here is in the channel (Slack shows an ephemeral only to a member).
    slack.people = [...slack.people, 'U0EXT', 'U0GST', 'U0FAY', 'U0HAL', 'U0IDA', 'U0JON', 'U0KIM'];
    slack.users = {
      // Someone of another organization in a Slack Connect channel, and a guest of this workspace.
      U0EXT: { team_id: 'T0OTHER', is_stranger: true },
      U0GST: { is_restricted: true },
    };
  },
});
const { slack } = file;
const { cardsIn, rootOf, tsOf, buttons, ephemeralsTo, ephemeralsIn } = slackThreads(slack);

async function startTask(command: string) {
  await postSigned(file.events, commandBody(command));
  const text = command.split(' ').slice(1).join(' ');
  const thread = tsOf(await until('root message', () => rootOf(text)));
  const card = await until('review card', () => cardsIn(thread)[0]);
  const task = await until('the task', async () =>
    (await file.service.signoff.engine.listTasks()).find((t) => t.text === text),
  );
  return { thread, card, task };
}

/** A click on the card's button `id` by `user` (from workspace `team`, when another). */
async function clickOn(card: Post, thread: string, id: string, user: string, team?: string) {
  const value = buttons(card).find((b) => b.action_id === id)?.value ?? '';
  const body = click(user, id, value, tsOf(card), thread);
  expect((await postSigned(file.events, team ? fromTeam(body, team) : body)).status).toBe(200);
  await file.service.settled();
}

const statusOf = async (taskId: string) => (await file.service.signoff.engine.getTask(taskId))?.status;
const groupLookups = () => slack.callsOf('usergroups.users.list').length;

describe('user groups', () => {
  it('a named reviewer decides while the user-group lookup fails; a member of the group is told Slack did not answer', async () => {
    const { thread, card, task } = await startTask('pair pay the print shop');
    const restore = slack.refuse('usergroups.users.list', () => true, 'internal_error');
    try {
      await clickOn(card, thread, 'signoff_approve', 'U0CAT');
      expect(ephemeralsTo('U0CAT').at(-1)).toBe(
        'Sorry, Slack did not say whether you are in <!subteam^S0LEADS> just now; try again in a minute.',
      );
      expect(await statusOf(task.id)).toBe('waiting');

      const before = groupLookups();
      await clickOn(card, thread, 'signoff_approve', 'U0BOB');
      await until('done', async () => ((await statusOf(task.id)) === 'done' ? true : undefined));
      // Bob is named: his right never depended on the group, so it was not asked about.
      expect(groupLookups()).toBe(before);
      expect(ephemeralsTo('U0BOB')).not.toContain(COULD_NOT_RECORD);
    } finally {
      restore();
    }
  });

  it('one usergroups.users.list call serves the Home tab and every click within a minute, members and not', async () => {
    const first = await startTask('pair order the banners');
    const second = await startTask('pair order the flyers');
    const before = groupLookups();

    await postSigned(file.events, appHomeOpened('U0CAT'), { json: true });
    await file.service.settled();
    const home = JSON.stringify(slack.callsOf('views.publish').at(-1));
    expect(home).toContain('order the banners');
    await clickOn(first.card, first.thread, 'signoff_approve', 'U0DAN');
    expect(ephemeralsTo('U0DAN').at(-1)).toBe('Sorry, you are not a reviewer for this step.');
    await clickOn(first.card, first.thread, 'signoff_reject', 'U0EVE');
    expect(ephemeralsTo('U0EVE').at(-1)).toBe('Sorry, you are not a reviewer for this step.');
    await clickOn(first.card, first.thread, 'signoff_approve', 'U0CAT');
    await clickOn(second.card, second.thread, 'signoff_approve', 'U0CAT');
    for (const { task } of [first, second]) {
      await until('done', async () => ((await statusOf(task.id)) === 'done' ? true : undefined));
    }
    expect(groupLookups() - before).toBe(1);
  });
});

describe('people from outside the organization', () => {
  it('someone of another organization in a Slack Connect channel is refused where anyone may decide, and decides where the checkpoint sets allowExternal', async () => {
    const open = await startTask('specialist reconcile the partner invoices');
    await clickOn(open.card, open.thread, 'signoff_approve', 'U0EXT', 'T0OTHER');
    expect(ephemeralsTo('U0EXT').at(-1)).toBe(`Sorry, ${OUTSIDERS}.`);
    expect(await statusOf(open.task.id)).toBe('waiting');
    expect(slack.callsOf('chat.update').some((u) => u.ts === tsOf(open.card))).toBe(false);

    const allowed = await startTask('goal-plan agree the launch date with the partner');
    await clickOn(allowed.card, allowed.thread, 'signoff_approve', 'U0EXT', 'T0OTHER');
    const [decided] = await file.service.signoff.engine.reviews(allowed.task.id, 'decided');
    expect(decided?.decidedBy).toBe('U0EXT');
  });

  it("a tap on a reply's question from another workspace is refused as a click on the card is", async () => {
    const { thread, task } = await startTask('specialist renew the partner contract');
    // In the channel (Slack Connect shares it); the reply's event said nothing of the author's
    // workspace, and users.info calls them a member.
    slack.people = [...slack.people, 'U0PAL'];
    await postSigned(file.events, threadMessage('U0PAL', 'looks right to me', thread), { json: true });
    const question = await until('the question', () => ephemeralsIn(thread, 'U0PAL')[0]);
    const approve = (
      (question.blocks as { type: string; elements?: { action_id: string; value: string }[] }[]).find(
        (b) => b.type === 'actions',
      )?.elements ?? []
    ).find((b) => b.action_id === 'signoff_reply_approve');
    expect(approve).toBeDefined();
    const tap = ephemeralClick(
      'U0PAL',
      'signoff_reply_approve',
      approve?.value ?? '',
      question.ts,
      slack.responseUrl(question.channel, question.ts),
    );
    // The tap itself comes from another workspace, as Slack Connect's do.
    expect((await postSigned(file.events, fromTeam(tap, 'T0OTHER'))).status).toBe(200);
    await file.service.settled();
    // The question is replaced by the refusal.
    await until('refused', () =>
      slack.responses.find((r) => r.ts === question.ts && r.body.text === `Sorry, ${OUTSIDERS}.`),
    );
    expect(await statusOf(task.id)).toBe('waiting');
    expect(await file.service.signoff.engine.reviews(task.id, 'decided')).toEqual([]);
    slack.people = slack.people.filter((p) => p !== 'U0PAL');
  });

  it('a guest of this workspace is refused; a member then decides', async () => {
    const { thread, card, task } = await startTask('specialist close the quarter');
    await clickOn(card, thread, 'signoff_approve', 'U0GST');
    expect(ephemeralsTo('U0GST').at(-1)).toBe(`Sorry, ${OUTSIDERS}.`);
    expect(await statusOf(task.id)).toBe('waiting');
    await clickOn(card, thread, 'signoff_approve', 'U0BOB');
    await until('done', async () => ((await statusOf(task.id)) === 'done' ? true : undefined));
  });

  it('when Slack does not say who someone is, they are told to try again and nothing is decided', async () => {
    const { thread, card, task } = await startTask('specialist audit the expenses');
    const restore = slack.refuse('users.info', (a) => a.user === 'U0FAY', 'internal_error');
    try {
      await clickOn(card, thread, 'signoff_approve', 'U0FAY');
      expect(ephemeralsTo('U0FAY').at(-1)).toMatch(
        /^Sorry, Slack did not say just now whether you are a member of this workspace .*try again in a minute\.$/,
      );
      expect(await statusOf(task.id)).toBe('waiting');
    } finally {
      restore();
    }
    // Not kept: the next click asks again, and decides.
    await clickOn(card, thread, 'signoff_approve', 'U0FAY');
    await until('done', async () => ((await statusOf(task.id)) === 'done' ? true : undefined));
  });

  it('a reviewer Slack answered for before decides while users.info fails; someone it never answered for is told to try again', async () => {
    const first = await startTask('specialist pay the cleaners');
    await clickOn(first.card, first.thread, 'signoff_approve', 'U0HAL');
    await until('done', async () => ((await statusOf(first.task.id)) === 'done' ? true : undefined));

    const { thread, card, task } = await startTask('specialist pay the caterers');
    // Past the minute an answer is trusted: Slack is asked again, and fails.
    clock.advance(61);
    const restore = slack.refuse('users.info', () => true, 'internal_error');
    try {
      const asked = slack.callsOf('users.info').length;
      await clickOn(card, thread, 'signoff_approve', 'U0IDA');
      expect(ephemeralsTo('U0IDA').at(-1)).toMatch(
        /^Sorry, Slack did not say just now whether you are a member of this workspace .*try again in a minute\.$/,
      );
      expect(await statusOf(task.id)).toBe('waiting');

      await clickOn(card, thread, 'signoff_approve', 'U0HAL');
      await until('done', async () => ((await statusOf(task.id)) === 'done' ? true : undefined));
      expect(
        slack
          .callsOf('users.info')
          .slice(asked)
          .map((c) => c.user),
      ).toContain('U0HAL');
      const [decided] = await file.service.signoff.engine.reviews(task.id, 'decided');
      expect(decided?.decidedBy).toBe('U0HAL');
    } finally {
      restore();
    }
  });
});

describe('after a restart', () => {
  it('a reviewer Slack answered for before decides while users.info fails, in a new process on the same database; a reviewer named by id is not asked about', async () => {
    const before = await startTask('specialist pay the florist');
    await clickOn(before.card, before.thread, 'signoff_approve', 'U0JON');
    await until('done', async () => ((await statusOf(before.task.id)) === 'done' ? true : undefined));

    // A deploy: this process stops, another starts on the same database, knowing nothing.
    await file.restart();
    clock.advance(61);
    const restore = slack.refuse('users.info', () => true, 'internal_error');
    try {
      const asked = slack.callsOf('users.info').length;
      const { thread, card, task } = await startTask('specialist pay the bakery');
      await clickOn(card, thread, 'signoff_approve', 'U0KIM');
      expect(ephemeralsTo('U0KIM').at(-1)).toMatch(
        /^Sorry, Slack did not say just now whether you are a member/,
      );
      await clickOn(card, thread, 'signoff_approve', 'U0JON');
      await until('done', async () => ((await statusOf(task.id)) === 'done' ? true : undefined));
      expect((await file.service.signoff.engine.reviews(task.id, 'decided'))[0]?.decidedBy).toBe('U0JON');

      const named = await startTask('pair pay the sound engineer');
      await clickOn(named.card, named.thread, 'signoff_approve', 'U0BOB');
      await until('done', async () => ((await statusOf(named.task.id)) === 'done' ? true : undefined));
      const users = slack
        .callsOf('users.info')
        .slice(asked)
        .map((c) => c.user);
      expect(users).toContain('U0JON');
      expect(users).not.toContain('U0BOB');
    } finally {
      restore();
    }
  });
});
