/**
 * An Enterprise Grid organization: one channel seen from several workspaces of the org, the app
 * installed org-wide or in one workspace. Each payload names its own person's workspace (a
 * command the one it was typed in, a click the clicker's or none, an event the poster's), so a
 * task is found by its thread (channel + root ts), never by a team: a command from one workspace,
 * then a reply, History, Cancel and Retry from another reach the same task. Tasks whose ids named
 * the command's workspace (before migration 017) are found the same way.
 */
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { rootMessage } from '../../src/slack/blocks/messages.js';
import {
  commandFrom,
  eventFrom,
  type Install,
  interactionFrom,
  replyEvent,
  type Workspace,
} from '../helpers/slack-orgs.js';
import { click, postSigned } from '../helpers/slack-requests.js';
import { overloadableModel, slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const model = overloadableModel();

const ORG = { id: 'E0ORG', name: 'Acme' };
const EAST: Workspace = { team: 'T0TEAM', domain: 'acme-east', enterprise: ORG };
const WEST: Workspace = { team: 'T0WEST', domain: 'acme-west', enterprise: ORG };
/** Installed for the whole organization: clicks carry no `team`, events no installation team. */
const ORG_WIDE: Install = { team: 'T0TEAM', enterprise: ORG.id, orgWide: true };
/** Installed in the east workspace only; the channel is shared with the west one. */
const EAST_ONLY: Install = { team: 'T0TEAM', enterprise: ORG.id };

/** S0WREV: a user group of the west workspace (W0CAT is in it). */
const YAML = `workflows:
  pair:
    maxIterations: 1
    checkpoints:
      review: { reviewers: [requester, W0WES, S0WREV], allowSelfApproval: false, dmReviewers: true }
`;

const file = slackPerFile('slack_grid', {
  yaml: YAML,
  workspace: (slack) => {
    slack.enterprise = ORG.id;
    // Grid's people have W ids; one of them works in the west workspace.
    slack.people = [...slack.people, 'W0ANN', 'W0WES', 'W0CAT'];
    slack.users = { W0WES: { team_id: WEST.team } };
    slack.groups = { S0WREV: ['W0CAT'] };
    slack.groupTeams = { S0WREV: WEST.team };
  },
  options: {
    modelFor: model.modelFor,
  },
});
const { slack } = file;
const { cardsIn, rootOf, tsOf, ephemeralsTo, buttons } = slackThreads(slack);

const taskNamed = (text: string) =>
  until(`the task "${text}"`, async () =>
    (await file.service.signoff.engine.listTasks()).find((t) => t.text === text),
  );

/** `/signoff pair <text>` by W0ANN in workspace `from`: its thread, card and task. */
async function startFrom(from: Workspace, install: Install, text: string) {
  expect((await postSigned(file.events, commandFrom(`pair ${text}`, 'W0ANN', from, install))).status).toBe(
    200,
  );
  const thread = tsOf(await until('root message', () => rootOf(text)));
  await until('review card', () => cardsIn(thread)[0], 20_000);
  return { thread, task: await taskNamed(text) };
}

/** A reply, History and Cancel by W0WES from the west workspace reach the task of `thread`. */
async function reachedFromWest(thread: string, taskId: string, install: Install) {
  const reply = eventFrom(replyEvent('W0WES', 'revise: say which API changed', thread), WEST, install);
  expect((await postSigned(file.events, reply, { json: true })).status).toBe(200);
  const decided = await until(
    'the reply counted as Revise',
    async () => (await file.service.signoff.engine.reviews(taskId, 'decided'))[0],
  );
  expect([decided.decidedBy, decided.decision?.action, decided.decision?.feedback]).toEqual([
    'W0WES',
    'revise',
    'say which API changed',
  ]);
  await until('the next round', () => cardsIn(thread)[1], 20_000);

  await postSigned(
    file.events,
    interactionFrom(click('W0WES', 'signoff_history', 'task', thread), WEST, install),
  );
  const history = await until('the history modal', () =>
    slack.callsOf('views.update').find((v) => JSON.stringify(v.view).includes(`signoff audit ${taskId}`)),
  );
  expect(JSON.stringify(history.view)).toContain('<@W0WES> asked for a revision');

  await postSigned(
    file.events,
    interactionFrom(click('W0WES', 'signoff_cancel', 'task', thread), WEST, install),
  );
  await until('cancelled', async () =>
    (await file.service.signoff.engine.getTask(taskId))?.status === 'cancelled' ? true : undefined,
  );
  expect(ephemeralsTo('W0WES').filter((t) => t.includes('not a signoff task'))).toEqual([]);
}

describe('Enterprise Grid: one task, whichever workspace of the organization acts on it', () => {
  it('installed org-wide: a command from the east workspace, then a reply, History and Cancel from the west one reach its task', async () => {
    slack.orgWide = true;
    const { thread, task } = await startFrom(EAST, ORG_WIDE, 'write the release notes');
    await reachedFromWest(thread, task.id, ORG_WIDE);
  });

  it("installed org-wide: a reviewer group is looked up in the task's workspace, so its member is pinged and approves from another workspace", async () => {
    // An org-level token must name the workspace a user group is in (Slack: missing_argument).
    slack.orgWide = true;
    const { thread, task } = await startFrom(WEST, ORG_WIDE, 'check the west rota');
    // The group's member is messaged directly with the card's link.
    await until('a DM to the group member', () =>
      slack.callsOf('conversations.open').find((c) => c.users === 'W0CAT' && !c.failed),
    );
    const [card] = cardsIn(thread);
    const value = buttons(card as never).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
    // W0CAT works in the east workspace too, and clicks from there.
    const body = click('W0CAT', 'signoff_approve', value, tsOf(card as never), thread);
    expect((await postSigned(file.events, interactionFrom(body, EAST, ORG_WIDE))).status).toBe(200);
    const decided = await until(
      'the approval',
      async () => (await file.service.signoff.engine.reviews(task.id, 'decided'))[0],
    );
    expect([decided.decidedBy, decided.decision?.action]).toEqual(['W0CAT', 'approve']);
    expect(slack.refusals.filter((r) => r.method === 'usergroups.users.list')).toEqual([]);
  });

  it("installed org-wide: a reviewer group of another workspace than the task's is looked up in the clicker's own; found in neither, the person is told Slack did not say, not that they are no reviewer", async () => {
    slack.orgWide = true;
    // Started from the east workspace; S0WREV lives in the west one (Slack: no_such_subteam in east).
    const { thread, task } = await startFrom(EAST, ORG_WIDE, 'check the east rota');
    const [card] = cardsIn(thread);
    const value = buttons(card as never).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
    const approveFrom = (from: Workspace) =>
      postSigned(
        file.events,
        interactionFrom(
          click('W0CAT', 'signoff_approve', value, tsOf(card as never), thread),
          from,
          ORG_WIDE,
        ),
      );

    // Clicking from the east workspace, the group is in neither the task's nor the clicker's.
    expect((await approveFrom(EAST)).status).toBe(200);
    const told = await until('a sentence to W0CAT', () => ephemeralsTo('W0CAT')[0]);
    expect(told).toContain('Slack did not say whether you are in <!subteam^S0WREV>');
    expect(await file.service.signoff.engine.reviews(task.id, 'decided')).toEqual([]);

    // From the west workspace, its own: the group is found there and the approval counts.
    expect((await approveFrom(WEST)).status).toBe(200);
    const decided = await until(
      'the approval',
      async () => (await file.service.signoff.engine.reviews(task.id, 'decided'))[0],
    );
    expect([decided.decidedBy, decided.decision?.action]).toEqual(['W0CAT', 'approve']);
    expect(
      ephemeralsTo('W0CAT').filter((t) => t.includes('not a reviewer') || t.startsWith('Sorry, only')),
    ).toEqual([]);
  });

  it('installed in one workspace: Retry from another workspace of the organization runs the failed task again', async () => {
    slack.orgWide = false;
    model.failNext(1);
    const text = 'summarise the incident review';
    expect(
      (await postSigned(file.events, commandFrom(`pair ${text}`, 'W0ANN', WEST, EAST_ONLY))).status,
    ).toBe(200);
    const thread = tsOf(await until('root message', () => rootOf(text)));
    const task = await taskNamed(text);
    await until('failed', async () =>
      (await file.service.signoff.engine.getTask(task.id))?.status === 'failed' ? true : undefined,
    );
    // The requester, now in the east workspace (Grid people work in several).
    await postSigned(
      file.events,
      interactionFrom(click('W0ANN', 'signoff_retry', 'task', thread), EAST, EAST_ONLY),
    );
    await until('the review card after the retry', () => cardsIn(thread)[0], 20_000);
    expect(ephemeralsTo('W0ANN').filter((t) => t.includes('not a signoff task'))).toEqual([]);
  });

  it('a task whose id names the workspace it was started from (started before migration 017) is reached from another workspace too', async () => {
    const text = 'plan the office move';
    const client = new WebClient('xoxb-test', { slackApiUrl: slack.url });
    const root = await client.chat.postMessage({
      channel: 'C0WORK',
      ...rootMessage({ requester: 'W0ANN', workflow: 'pair', text }, 'working'),
    });
    const thread = String(root.ts);
    // As the code before 017 started it from a command typed in the east workspace.
    const { task } = await file.service.signoff.engine.start({
      id: `slack-T0TEAM-C0WORK-${thread}`,
      workflow: 'pair',
      text,
      requester: 'W0ANN',
      surface: 'slack',
      origin: { team: EAST.team, channel: 'C0WORK', ts: thread },
      channel: 'C0WORK',
    });
    await until('review card', () => cardsIn(thread)[0], 20_000);
    slack.orgWide = true;
    await reachedFromWest(thread, task.id, ORG_WIDE);
  });
});
