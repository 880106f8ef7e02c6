/**
 * Budgets on the path a team with OPENAI_API_KEY runs: the real ChatOpenAI client against a local
 * OpenAI-compatible server (each answer uses 10 tokens in and 5 out), through the fake Slack. Each
 * answer's usage is counted on the task at the config file's prices; at its workflow's budget the
 * task pauses with a card ("Budget reached: spent $6.00 of $5.00"), before paying for another
 * answer; Continue raises the budget and the agents go on from the step they were at; Stop stops
 * the task. The root shows what was spent, and /metrics carries tokens and cost by workflow.
 */
import { describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { click, commandBody, postSigned, reviseSubmission } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

// $2 an answer: 10 × 100,000 + 5 × 200,000 per million tokens.
const YAML = `prices:
  gpt-4o-mini: { input: 100000, output: 200000 }
workflows:
  pair:
    maxIterations: 4
    budget: 5
  specialist:
    checkpoints:
      review: { budget: 3 }
  four-steps:
    agents: { a: { name: A }, b: { name: B }, c: { name: C }, d: { name: D } }
    stages:
      - { id: work, agents: [a, b, c, d], review: done }
    checkpoints:
      budget: { budget: 5 }
`;

const model = new FakeOpenAI({ random: () => 0 });
const t = slackPerFile('budgets', { yaml: YAML, env: { OPENAI_MODEL: 'gpt-4o-mini' }, model });
const { slack } = t;
const { rootOf, tsOf, cardsIn, buttons, updatesOf } = slackThreads(slack);
const text = (p: unknown) => JSON.stringify(p);

describe('budgets', () => {
  it('at its budget the task pauses with a card before the next answer; Continue goes on from that step; the root shows the cost', async () => {
    const from = model.calls.length;
    await postSigned(t.events, commandBody('pair write the pricing page'));
    const thread = tsOf(await until('root', () => rootOf('write the pricing page')));
    const budget = await until('the budget card', () => cardsIn(thread)[0], 30_000);
    expect(text(budget)).toMatch(/Budget reached: spent \$6.00 of \$5.00/);
    expect(text(buttons(budget))).toMatch(/Continue with \$5\.00 more.*Stop/);
    // Three answers paid for; the fourth was never asked.
    expect(model.calls.length - from).toBe(3);
    const engine = t.service.signoff.engine;
    const task = await engine.taskAt('slack', { channel: 'C0WORK', thread });
    expect(task).toMatchObject({ status: 'waiting', tokensIn: 30, tokensOut: 15, costUsd: 6, budgetUsd: 5 });

    const value = buttons(budget).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
    await postSigned(t.events, click('U0BOB', 'signoff_approve', value, tsOf(budget), thread));
    const review = await until('the agents’ review', () => cardsIn(thread)[1], 30_000);
    expect(text(review)).toMatch(/Review the agents' work/);
    // Only the fourth answer was asked after Continue: the three before it were kept.
    expect(model.calls.length - from).toBe(4);
    expect(await engine.getTask(task?.id ?? '')).toMatchObject({ costUsd: 8, budgetUsd: 11 });
    await until('the root shows the cost', () =>
      updatesOf(thread).find((u) => /\$8\.00 of \$11\.00 spent · 60 tokens/.test(text(u))),
    );
    const metrics = await t.service.signoff.metrics.text();
    expect(metrics).toMatch(/signoff_model_tokens\{workflow="pair",direction="input"\} \d+/);
    expect(metrics).toMatch(/signoff_model_cost_usd\{workflow="pair"\} \d+/);
  });

  it("Continue gives what its card says, once: a budget checkpoint's own budget is not given a second time", async () => {
    await postSigned(t.events, commandBody('four-steps draft the launch email'));
    const thread = tsOf(await until('root', () => rootOf('draft the launch email')));
    const budget = await until('the budget card', () => cardsIn(thread)[0], 30_000);
    expect(text(budget)).toMatch(/Budget reached: spent \$6.00 of \$5.00/);
    expect(text(buttons(budget))).toMatch(/Continue with \$5\.00 more/);
    const value = buttons(budget).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
    await postSigned(t.events, click('U0BOB', 'signoff_approve', value, tsOf(budget), thread));
    await until('the review', () => cardsIn(thread)[1], 30_000);
    const engine = t.service.signoff.engine;
    const task = await engine.taskAt('slack', { channel: 'C0WORK', thread });
    // $6 spent at the card, and $5 more: the fourth answer ($2) fits, and nothing more was given.
    expect(task).toMatchObject({ costUsd: 8, budgetUsd: 11 });
  });

  it('Stop at the budget stops the task, saying why', async () => {
    await postSigned(t.events, commandBody('pair write the careers page'));
    const thread = tsOf(await until('root', () => rootOf('write the careers page')));
    const budget = await until('the budget card', () => cardsIn(thread)[0], 30_000);
    const value = buttons(budget).find((b) => b.action_id === 'signoff_reject')?.value ?? '';
    await postSigned(t.events, click('U0BOB', 'signoff_reject', value, tsOf(budget), thread));
    const engine = t.service.signoff.engine;
    const id = (await engine.taskAt('slack', { channel: 'C0WORK', thread }))?.id ?? '';
    const stopped = await until('stopped', async () => {
      const x = await engine.getTask(id);
      return x?.status === 'stopped' ? x : undefined;
    });
    expect(stopped.statusReason).toBe('stopped at its budget');
  });

  it("a checkpoint's budget is a round's: each decision there gives the agents that much more from what they spent, and every answer counts, structured ones too", async () => {
    const before = model.calls.length;
    await postSigned(t.events, commandBody('specialist reconcile the ledger'));
    const thread = tsOf(await until('root', () => rootOf('reconcile the ledger')));
    const card = await until('the review', () => cardsIn(thread)[0], 30_000);
    const engine = t.service.signoff.engine;
    const id = (await engine.taskAt('slack', { channel: 'C0WORK', thread }))?.id ?? '';
    const first = await engine.getTask(id);
    // Before the first review the round's budget is the checkpoint's.
    expect(first?.budgetUsd).toBe(3);
    // Every answer so far counted (10 tokens in each), the planner's structured one too: a model
    // bound for structured output or tools keeps the handler that counts it.
    expect(first?.tokensIn).toBe((model.calls.length - before) * 10);
    const value = JSON.parse(buttons(card).find((b) => b.action_id === 'signoff_approve')?.value ?? '{}');
    const meta = JSON.stringify({ value, channel: 'C0WORK', messageTs: tsOf(card), threadTs: thread });
    await postSigned(t.events, reviseSubmission('U0BOB', meta, 'use the March figures'));
    await until('the second review', () => cardsIn(thread)[1], 30_000);
    const second = await engine.getTask(id);
    expect(second?.budgetUsd).toBe((first?.costUsd ?? 0) + 3);
  });
});
