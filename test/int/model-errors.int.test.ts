/**
 * A model provider's refusal through the real ChatOpenAI client: the channel sees a coded
 * sentence saying what happened and what to do, never the provider's words (a masked key, a
 * link, an internal host), and the task can be retried.
 */
import { describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { click, commandBody, postSigned } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const model = new FakeOpenAI();
const t = slackPerFile('model_errors', {
  model,
  // No client retries: each answer the server gives is the one the workflow reads.
  env: { OPENAI_MAX_RETRIES: '0' },
});
const { slack } = t;
const { rootOf, tsOf, cardsIn, buttons } = slackThreads(slack);

/** Everything the bot put in a channel: posts and updates, text and blocks. */
const shown = () =>
  JSON.stringify(
    slack.calls
      .filter((c) => ['chat.postMessage', 'chat.update', 'chat.postEphemeral'].includes(c.method))
      .map((c) => [c.args.text, c.args.blocks]),
  );
const PROVIDER_WORDS = [
  'sk-proj',
  'Incorrect API key',
  'platform.openai.com',
  'corp.internal',
  'Troubleshooting',
];

describe('model errors in Slack', () => {
  it('a refused key fails the task with a sentence, not the provider text; Retry runs it again', async () => {
    model.failNext({ status: 401 });
    await postSigned(t.events, commandBody('pair summarise the board minutes'));
    const thread = tsOf(await until('root', () => rootOf('summarise the board minutes')));
    const failed = await until('root says failed', () =>
      slack
        .callsOf('chat.update')
        .find((u) => u.ts === thread && JSON.stringify(u.blocks).includes('the API key was not accepted')),
    );
    expect(JSON.stringify(failed.blocks)).toContain('OPENAI_API_KEY');
    for (const words of PROVIDER_WORDS) expect(shown()).not.toContain(words);

    await postSigned(t.events, click('U0ANN', 'signoff_retry', 'task', thread));
    await until('review card after the retry', () => cardsIn(thread)[0]);
  });

  it('a specialist that meets an invalid-request refusal says so in a sentence and offers Retry', async () => {
    // The planner answers; the specialist's call is refused.
    model.failNext({}, 1);
    model.failNext({ status: 400 });
    await postSigned(t.events, commandBody('specialist reconcile the March invoices'));
    const thread = tsOf(await until('root', () => rootOf('reconcile the March invoices')));
    const card = await until('retry card', () => cardsIn(thread)[0]);
    expect(JSON.stringify(card.blocks)).toContain('The model service refused the request as invalid');
    expect(JSON.stringify(buttons(card))).toContain('Retry');
    for (const words of PROVIDER_WORDS) expect(shown()).not.toContain(words);
  });
});

describe('structured answers outside their schema', () => {
  it('a routing to a specialist that does not exist is asked for once more, and the second answer routes', async () => {
    const before = model.calls.length;
    model.failNext({ answer: { specialist: 'tax' } });
    await postSigned(t.events, commandBody('specialist close the books for June'));
    const thread = tsOf(await until('root', () => rootOf('close the books for June')));
    const card = await until('review card', () => cardsIn(thread)[0]);
    expect(JSON.stringify(card.blocks)).toMatch(/Approve the (Invoice|Closing|Audit) specialist's result\?/);
    // The planner was asked twice, then the specialist once.
    expect(model.calls.length - before).toBe(3);
  });

  it('two routings outside the schema stop the step: a sentence and Retry, not a guess', async () => {
    model.failNext({ answer: { specialist: 'tax' } }, 2);
    await postSigned(t.events, commandBody('specialist file the VAT return'));
    const thread = tsOf(await until('root', () => rootOf('file the VAT return')));
    const card = await until('retry card', () => cardsIn(thread)[0]);
    expect(JSON.stringify(card.blocks)).toContain("The model's answer was not in the form this step needs");
    expect(JSON.stringify(buttons(card))).toContain('Retry');
  });
});
