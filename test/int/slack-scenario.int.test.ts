/**
 * A scenario file drives a task in Slack's fake just as `signoff test` drives it in the terminal:
 * the same agents' answers, the same decisions (clicks for approve and reject, a thread reply for
 * revise), the same expectations, read from what was posted.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readScenario, type ScenarioDecision } from '../../src/cli/scenario.js';
import { scenarioModels } from '../../src/llm/scenario-models.js';
import { click, commandBody, postSigned, threadMessage } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const scenario = readScenario(
  join(import.meta.dirname, '..', '..', 'examples', 'scenarios', 'pair-happy-path.yml'),
);

const file = slackPerFile('slack_scenario', { options: { modelFor: scenarioModels(scenario) } });
const { slack } = file;
const { rootOf, tsOf, cardsIn, buttons, posts } = slackThreads(slack);

describe('a scenario file in Slack', () => {
  it('pair-happy-path.yml: the scripted answers and decisions give the expected end', async () => {
    await postSigned(file.events, commandBody(`pair ${scenario.task}`));
    const thread = tsOf(await until('root', () => rootOf(scenario.task)));
    const status = () =>
      slack
        .callsOf('chat.update')
        .filter((u) => u.ts === thread)
        .map((u) => JSON.stringify(u.blocks))
        .at(-1) ?? '';
    const decisions: ScenarioDecision[] = scenario.reviews.review ?? [];
    for (const [n, decision] of decisions.entries()) {
      const card = await until(`card ${n + 1}`, () => cardsIn(thread)[n]);
      if (typeof decision === 'object') {
        await postSigned(file.events, threadMessage('U0BOB', `revise: ${decision.revise}`, thread), {
          json: true,
        });
      } else {
        const id = decision === 'approve' ? 'signoff_approve' : 'signoff_reject';
        const value = buttons(card).find((b) => b.action_id === id)?.value ?? '';
        await postSigned(file.events, click('U0BOB', id, value, tsOf(card), thread));
      }
    }
    await until('the task ended', () => (/Done|Rejected|Stopped/.test(status()) ? true : undefined));
    expect(status()).toContain(scenario.expect.status === 'done' ? 'Done' : scenario.expect.status);
    expect(cardsIn(thread)).toHaveLength(scenario.expect.rounds ?? 0);
    // What the thread shows: its posts, and its cards as updated (the feedback is on the decided card).
    const updates = slack.callsOf('chat.update').filter((u) => u.ts !== thread);
    const said = JSON.stringify([...posts().filter((p) => p.thread_ts === thread), ...updates]);
    for (const text of scenario.expect.contains) expect(said).toContain(text);
  });
});
