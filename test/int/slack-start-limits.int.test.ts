/**
 * Start limits in Slack (issue 19, item 10): one person's 101st start, with the limit at 100, is
 * refused privately through the command's response URL with a sentence saying what to do, before
 * anything is posted in the channel, while another person's start goes. A web process runs no
 * graph here, so every started task stays in the agents' hands (`working`), as behind a busy queue.
 */
import { describe, expect, it } from 'vitest';
import { claimRequest } from '../../src/slack/inbound/claims.js';
import { commandBody, postSigned } from '../helpers/slack-requests.js';
import { slackPerFile, sweepStarts } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const file = slackPerFile('slack_start_limits', {
  yaml: 'starts:\n  perPerson: 100\n  perChannel: 1000\n',
  env: { SIGNOFF_ROLE: 'web' },
});
const { slack } = file;
const { rootOf, ephemeralsTo } = slackThreads(slack);

const working = async (user: string) =>
  Number(
    (
      await file.service.signoff.db.pool.query(
        `SELECT count(*) AS n FROM signoff.tasks WHERE requester = $1 AND status = 'working'`,
        [user],
      )
    ).rows[0].n,
  );

const FULL =
  'You already have 100 tasks the agents are working on, the most one person may have at once. Start this one when one of them is done or waiting for a review, or cancel one you no longer need.';

describe('one person starting more than the limit', () => {
  it("the 101st start by one person is refused privately with the sentence, and nothing is posted; another person's start goes", async () => {
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        // Each of a batch in its own channel: Slack takes about one post a second in a channel, and
        // signoff paces roots to that (slack-paced-starts), so 100 in one channel would take 100 s of
        // setup; the limit counts a person's tasks in every channel alike.
        Array.from({ length: 10 }, (_, i) =>
          postSigned(
            file.events,
            commandBody(`pair bulk task ${batch * 10 + i + 1}`, 'U0ANN', { channel_id: `C0BULK${i}` }),
          ),
        ),
      );
      await file.service.settled();
    }
    expect(await working('U0ANN')).toBe(100);

    const url = slack.responseUrl('C0WORK', '', 'U0ANN');
    await postSigned(file.events, commandBody('pair one task too many', 'U0ANN', { response_url: url }));
    await file.service.settled();
    expect(ephemeralsTo('U0ANN')).toContain(FULL);
    expect(rootOf('one task too many')).toBeUndefined();
    expect(await working('U0ANN')).toBe(100);

    await postSigned(file.events, commandBody('pair a task of my own', 'U0BOB'));
    await until('Bob’s root', () => rootOf('a task of my own'));
    await until('Bob’s task', async () => ((await working('U0BOB')) === 1 ? true : undefined));
  });

  it('a start that found room before posting but none after (another took the place) loses its root, and the person is told', async () => {
    // What a start finds when the limit was reached between its look and its task: a claim, then
    // a sweep finishing it, which posts a root and has the task refused.
    const url = slack.responseUrl('C0WORK', '', 'U0ANN');
    const start = {
      team: 'T0TEAM',
      channel: 'C0WORK',
      user: 'U0ANN',
      workflow: 'pair',
      text: 'raced',
      responseUrl: url,
    };
    await claimRequest(file.service.signoff.db.pool, 'command:trigger-raced', start);
    const told = ephemeralsTo('U0ANN').filter((t) => t === FULL).length;
    await sweepStarts(file.service, slack);
    // Posted, then deleted: the channel keeps no root of a task that never started.
    expect(rootOf('raced')).toBeDefined();
    expect(slack.messages.some((m) => m.text?.includes('raced'))).toBe(false);
    expect(ephemeralsTo('U0ANN').filter((t) => t === FULL)).toHaveLength(told + 1);
    // Finished: nothing is left for the next sweep.
    expect(await sweepStarts(file.service, slack)).toBe(0);
    expect(await working('U0ANN')).toBe(100);
  });
});
