/**
 * A Slack Connect channel: shared with another organization, whose people reply and click from
 * their own workspace. Their payloads name that workspace (an event's envelope `team_id`, a
 * click's `team` and `user.team_id`); the channel's id is the same on both sides. The task is found
 * by its thread: a command from this workspace, then a reply, History and Cancel from the partner's
 * reach it. A file the partner shares comes with its id only, and is named as "1 file".
 */
import { describe, expect, it } from 'vitest';
import { fileShareEvent, sharedFromElsewhere } from '../helpers/slack-files.js';
import {
  commandFrom,
  eventFrom,
  type Install,
  interactionFrom,
  replyEvent,
  type Workspace,
} from '../helpers/slack-orgs.js';
import { click, postSigned } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const HOME: Workspace = { team: 'T0TEAM', domain: 'acme' };
/** The partner: another organization's workspace, sharing the channel. */
const PARTNER: Workspace = { team: 'T0OTHER', domain: 'globex' };
const INSTALL: Install = { team: HOME.team };

const YAML = `workflows:
  pair:
    maxIterations: 1
    checkpoints:
      review: { reviewers: [U0ZED, requester], allowSelfApproval: false, allowExternal: true, dmReviewers: true }
`;

const file = slackPerFile('slack_connect', {
  yaml: YAML,
  workspace: (slack) => {
    slack.people = [...slack.people, 'U0ZED'];
    slack.users = { U0ZED: { team_id: PARTNER.team, is_stranger: true } };
  },
});
const { slack } = file;
const { cardsIn, rootOf, tsOf, ephemeralsTo } = slackThreads(slack);

async function startHere(text: string) {
  expect((await postSigned(file.events, commandFrom(`pair ${text}`, 'U0ANN', HOME, INSTALL))).status).toBe(
    200,
  );
  const thread = tsOf(await until('root message', () => rootOf(text)));
  await until('review card', () => cardsIn(thread)[0], 20_000);
  const task = await until('the task', async () =>
    (await file.service.signoff.engine.listTasks()).find((t) => t.text === text),
  );
  return { thread, task };
}

const decidedIn = (taskId: string) =>
  until('a decided review', async () => (await file.service.signoff.engine.reviews(taskId, 'decided'))[0]);

describe('Slack Connect: the partner organization acts on a task started here', () => {
  it("a command from this workspace, then a reply, History and Cancel from the partner's workspace reach its task", async () => {
    const { thread, task } = await startHere('agree the delivery schedule');
    const reply = eventFrom(
      replyEvent('U0ZED', 'revise: we need it a week earlier', thread),
      PARTNER,
      INSTALL,
    );
    expect(JSON.parse(reply).team_id).toBe(PARTNER.team);
    expect((await postSigned(file.events, reply, { json: true })).status).toBe(200);
    const decided = await decidedIn(task.id);
    expect([decided.decidedBy, decided.decision?.feedback]).toEqual(['U0ZED', 'we need it a week earlier']);
    await until('the next round', () => cardsIn(thread)[1], 20_000);

    await postSigned(
      file.events,
      interactionFrom(click('U0ZED', 'signoff_history', 'task', thread), PARTNER, INSTALL),
    );
    await until('the history modal', () =>
      slack.callsOf('views.update').find((v) => JSON.stringify(v.view).includes(`signoff audit ${task.id}`)),
    );
    await postSigned(
      file.events,
      interactionFrom(click('U0ZED', 'signoff_cancel', 'task', thread), PARTNER, INSTALL),
    );
    await until('cancelled', async () =>
      (await file.service.signoff.engine.getTask(task.id))?.status === 'cancelled' ? true : undefined,
    );
    expect(ephemeralsTo('U0ZED').filter((t) => t.includes('not a signoff task'))).toEqual([]);
  });

  it('a screenshot the partner shares with its feedback (Slack gives its id only) is named as a file the agents cannot open', async () => {
    const { thread, task } = await startHere('fix the partner logo on the invoice');
    const reply = fileShareEvent('U0ZED', 'revise: the logo is cut off, see the screenshot', thread, [
      sharedFromElsewhere(),
    ]);
    await postSigned(file.events, eventFrom(reply, PARTNER, INSTALL), { json: true });
    const decided = await decidedIn(task.id);
    expect(decided.decision?.feedback).toBe(
      'the logo is cut off, see the screenshot\n\n(Attached in Slack: 1 file. The agents cannot open files; only these words reach them.)',
    );
  });

  it('reviewers messaged directly: the partner, whom Slack lets no bot DM, is skipped and the rest are messaged', async () => {
    const opens = slack.callsOf('conversations.open').length;
    const { task } = await startHere('check the shared roadmap');
    const [review] = await file.service.signoff.engine.reviews(task.id, 'pending');
    // U0ZED comes first; Slack refuses their DM, and the requester is messaged all the same.
    const key = `dm:${review?.id}:U0ANN`;
    await until('the DM to U0ANN', () =>
      slack.messages.find((m) => JSON.stringify(m.metadata ?? {}).includes(key)),
    );
    const refused = slack
      .callsOf('conversations.open')
      .slice(opens)
      .filter((c) => c.users === 'U0ZED');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((c) => c.failed)).toBe(true);
  });
});
