/**
 * A start a web process left half done (it died between claiming a command and starting its
 * task) is finished by the sweep: the root it posted is found by its metadata, or one is posted;
 * either way one root, one task, and the task goes on to its card.
 */
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { rootMessage } from '../../src/slack/blocks/messages.js';
import { claimRequest, recordRoot } from '../../src/slack/inbound/claims.js';
import { slackTaskId } from '../../src/slack/shared/origin.js';
import { postMetadata } from '../../src/slack/shared/posts.js';
import { slackPerFile, sweepStarts } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const file = slackPerFile('slack_starts', { yaml: 'workflows:\n  pair:\n    maxIterations: 1\n' });
const { slack } = file;
const { cardsIn } = slackThreads(slack);

const client = () => new WebClient('xoxb-test', { slackApiUrl: slack.url });
const sweep = () => sweepStarts(file.service, slack);

/** A claim its process died with. */
async function abandoned(key: string, text: string) {
  const start = { team: 'T0TEAM', channel: 'C0WORK', user: 'U0ANN', workflow: 'pair', text };
  await claimRequest(file.service.signoff.db.pool, key, start);
  return start;
}

const rootsOf = (text: string) => slack.messages.filter((m) => !m.thread_ts && m.text?.includes(text));

describe('starts a web process left half done', () => {
  it('the root it posted is found by its metadata, and the task starts in its thread', async () => {
    const text = 'compare the two vendor quotes';
    const start = await abandoned('command:trigger-died-1', text);
    // The root went out; the process died before recording it.
    const posted = await client().chat.postMessage({
      channel: start.channel,
      ...rootMessage({ requester: start.user, workflow: start.workflow, text }, 'working'),
      metadata: postMetadata('start:command:trigger-died-1'),
    });
    expect(await sweep()).toBe(1);
    const task = await file.service.signoff.engine.getTask(
      slackTaskId({ channel: 'C0WORK', ts: String(posted.ts) }),
    );
    expect(task?.text).toBe(text);
    expect(rootsOf(text)).toHaveLength(1);
    await until('the card', () => cardsIn(posted.ts as string)[0]);
    // Done once: a second sweep finds nothing left.
    expect(await sweep()).toBe(0);
  });

  it('the root it posted is found under 250 newer messages (the sweep reads more than the latest page of history), not posted twice', async () => {
    const text = 'sum up the incident timeline';
    const start = await abandoned('command:trigger-died-busy', text);
    const posted = await client().chat.postMessage({
      channel: start.channel,
      ...rootMessage({ requester: start.user, workflow: start.workflow, text }, 'working'),
      metadata: postMetadata('start:command:trigger-died-busy'),
    });
    // A busy channel: people went on talking before the sweep came by.
    for (let i = 0; i < 250; i += 1)
      slack.messages.push({
        channel: 'C0WORK',
        ts: `1800000000.${String(i).padStart(6, '0')}`,
        text: 'chatter',
      });
    expect(await sweep()).toBe(1);
    expect(rootsOf(text)).toHaveLength(1);
    const task = await file.service.signoff.engine.getTask(
      slackTaskId({ channel: 'C0WORK', ts: String(posted.ts) }),
    );
    expect(task?.text).toBe(text);
    await until('the card', () => cardsIn(posted.ts as string)[0]);
  });

  it('the root it posted is found under 300 newer messages when Slack answers short pages (40 of the 200 asked): the sweep reads the latest 1,000 messages, not five pages, and posts no second root', async () => {
    const text = 'list the renewals due in May';
    const start = await abandoned('command:trigger-died-short', text);
    const posted = await client().chat.postMessage({
      channel: start.channel,
      ...rootMessage({ requester: start.user, workflow: start.workflow, text }, 'working'),
      metadata: postMetadata('start:command:trigger-died-short'),
    });
    for (let i = 0; i < 300; i += 1) slack.said('C0WORK', 'U0BOB', 'chatter');
    const usual = slack.messagesPerPage;
    slack.messagesPerPage = () => 40;
    try {
      expect(await sweep()).toBe(1);
    } finally {
      slack.messagesPerPage = usual;
    }
    expect(rootsOf(text)).toHaveLength(1);
    const task = await file.service.signoff.engine.getTask(
      slackTaskId({ channel: 'C0WORK', ts: String(posted.ts) }),
    );
    expect(task?.text).toBe(text);
    await until('the card', () => cardsIn(posted.ts as string)[0]);
  });

  it('with no root out yet, the sweep posts one and starts the task', async () => {
    const text = 'draft the on-call handover';
    await abandoned('command:trigger-died-2', text);
    expect(await sweep()).toBe(1);
    const [root] = rootsOf(text);
    expect(rootsOf(text)).toHaveLength(1);
    const task = await file.service.signoff.engine.getTask(
      slackTaskId({ channel: 'C0WORK', ts: String(root?.ts) }),
    );
    expect(task?.requester).toBe('U0ANN');
    await until('the card', () => cardsIn(root?.ts as string)[0]);
  });

  it('a recorded root whose task was started under an id naming its workspace (before migration 017) is linked to that task, not started again', async () => {
    const text = 'renew the support contract';
    const key = 'command:trigger-died-3';
    const start = await abandoned(key, text);
    const posted = await client().chat.postMessage({
      channel: start.channel,
      ...rootMessage({ requester: start.user, workflow: start.workflow, text }, 'working'),
      metadata: postMetadata(`start:${key}`),
    });
    const pool = file.service.signoff.db.pool;
    await recordRoot(pool, key, String(posted.ts));
    // Started before an upgrade, by the code of then; the process died before linking the request.
    const { task } = await file.service.signoff.engine.start({
      id: `slack-T0TEAM-C0WORK-${posted.ts}`,
      workflow: 'pair',
      text,
      requester: 'U0ANN',
      surface: 'slack',
      origin: { team: 'T0TEAM', channel: 'C0WORK', ts: String(posted.ts) },
      channel: 'C0WORK',
    });
    expect(await sweep()).toBe(1);
    const tasks = (await file.service.signoff.engine.listTasks()).filter((t) => t.text === text);
    expect(tasks.map((t) => t.id)).toEqual([task.id]);
    const linked = await pool.query('SELECT task_id FROM signoff.slack_requests WHERE key = $1', [key]);
    expect(linked.rows[0]?.task_id).toBe(task.id);
    expect(await sweep()).toBe(0);
  });
});
