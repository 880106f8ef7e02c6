/**
 * The path a team with OPENAI_API_KEY runs: every built-in workflow and the approval-agent
 * example, end to end through the fake Slack, with the real ChatOpenAI client against a local
 * OpenAI-compatible server that refuses what OpenAI would. Structured answers and tool calls are
 * parsed, the configured model names are sent, and nothing is refused.
 */
import { describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { click, commandBody, postSigned } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const YAML = `workflows:
  pair:
    maxIterations: 2
    agents:
      agent2:
        model: gpt-4.1-mini
  mailer:
    module: ./examples/approval-agent/graph.ts
`;

// The first option of every enum: the chair says "revise", so a person reviews each draft.
const model = new FakeOpenAI({ random: () => 0 });
const t = slackPerFile('openai_workflows', { yaml: YAML, env: { OPENAI_MODEL: 'gpt-4o-mini' }, model });
const { slack } = t;
const { rootOf, tsOf, cardsIn, buttons } = slackThreads(slack);

/** Starts `command`, approves every card it shows until its root says Done; returns the calls it made. */
async function approveThrough(command: string, text: string) {
  const from = model.calls.length;
  await postSigned(t.events, commandBody(command));
  const thread = tsOf(await until('root', () => rootOf(text)));
  const done = () =>
    slack.callsOf('chat.update').find((u) => u.ts === thread && JSON.stringify(u.blocks).includes('Done'));
  for (let n = 0; !done(); n++) {
    const card = await until(
      `card ${n + 1} or the end`,
      () => cardsIn(thread)[n] ?? (done() ? null : undefined),
      30_000,
    );
    if (!card) break;
    const approve = buttons(card).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
    await postSigned(t.events, click('U0BOB', 'signoff_approve', approve, tsOf(card), thread));
    await until(`card ${n + 1} decided`, () =>
      slack
        .callsOf('chat.update')
        .find((u) => u.ts === tsOf(card) && JSON.stringify(u.blocks).includes('by <@U0BOB>')),
    );
  }
  return { calls: model.calls.slice(from), thread };
}

describe('every workflow on an OpenAI-compatible server', () => {
  it('pair: plain answers; the per-agent model is sent for that agent only', async () => {
    const { calls } = await approveThrough('pair write the launch note', 'write the launch note');
    expect(calls.map((c) => c.answered)).toEqual(['content', 'content']);
    expect(calls.map((c) => c.model)).toEqual(['gpt-4o-mini', 'gpt-4.1-mini']);
  });

  it('specialist: the routing is a structured answer, then the specialist writes', async () => {
    const { calls } = await approveThrough(
      'specialist reconcile the June invoices',
      'reconcile the June invoices',
    );
    expect(calls.map((c) => c.answered)).toEqual(['json', 'content']);
  });

  it('goal-plan: the goal and the plan are structured answers, each plan step a plain one', async () => {
    const { calls } = await approveThrough('goal-plan move the wiki to Notion', 'move the wiki to Notion');
    expect(calls.filter((c) => c.answered === 'json').length).toBeGreaterThanOrEqual(2);
    expect(calls.some((c) => c.answered === 'content')).toBe(true);
  });

  it('proposal: query and verdict structured, the rest plain, a person reviews the draft', async () => {
    const { calls } = await approveThrough('proposal district heating', 'district heating');
    expect(calls.filter((c) => c.answered === 'json')).toHaveLength(2); // the query, the chair's verdict
    expect(calls.filter((c) => c.answered === 'content').length).toBeGreaterThanOrEqual(4);
  });

  it('the approval-agent example: its tool call becomes a card, and the approved call runs', async () => {
    const { calls, thread } = await approveThrough(
      'mailer email the team about the launch',
      'email the team about the launch',
    );
    expect(calls.map((c) => c.answered)).toEqual(['tool', 'content']);
    const said = slack.callsOf('chat.postMessage').filter((p) => p.thread_ts === thread);
    expect(said.map((p) => String(p.text)).filter((x) => x.startsWith('Sent "'))).toHaveLength(1);
  });

  it('OpenAI refused nothing, and every call named a configured model', () => {
    expect(model.rejected).toEqual([]);
    expect(new Set(model.calls.map((c) => c.model))).toEqual(new Set(['gpt-4o-mini', 'gpt-4.1-mini']));
  });
});
