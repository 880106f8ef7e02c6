/**
 * A working task's plan in Slack, through Bolt's HTTP receiver and the fake Slack: the root
 * message shows a plan block, one task card per step of the graph, whose statuses move as the
 * graph does; its Stop cancels the working task, and the plan says who stopped which step.
 */
import { describe, expect, it } from 'vitest';
import { holdSteps } from '../fixtures/steps-graph.js';
import { click, commandBody, postSigned } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { type Post, slackThreads, until } from '../helpers/slack-thread.js';

const file = slackPerFile('slack_plan', {
  yaml: 'workflows:\n  steps:\n    module: ./test/fixtures/steps-graph.ts\n',
});
const { slack } = file;
const { rootOf, tsOf, updatesOf, buttons } = slackThreads(slack);

interface Card {
  type: string;
  task_id: string;
  title: string;
  status: string;
  details?: unknown;
}
const planOf = (u: { blocks?: unknown }) =>
  (u.blocks as { type: string; title?: string; tasks?: Card[] }[] | undefined)?.find(
    (b) => b.type === 'plan',
  );
const statusesIn = (u: { blocks?: unknown }) =>
  planOf(u)
    ?.tasks?.map((t) => t.status)
    .join(' ');

async function start(text: string) {
  await postSigned(file.events, commandBody(`steps ${text}`, 'U0ANN'));
  const thread = tsOf(await until('root message', () => rootOf(text)));
  /** The root's first update whose plan reads `expected`. */
  const planReads = (expected: string) =>
    until(`a plan reading ${expected}`, () => updatesOf(thread).find((u) => statusesIn(u) === expected));
  return { thread, planReads };
}

describe("a task's plan on its root message", () => {
  it("shows the graph's steps in order, each moving pending → in progress → complete as the graph moves, and all complete when done", async () => {
    const steps = holdSteps('alpha');
    const { thread, planReads } = await start('alpha write the memo');
    const first = await planReads('in_progress pending pending');
    expect(planOf(first)?.tasks?.map((t) => [t.type, t.task_id, t.title])).toEqual([
      ['task_card', 'step_1', 'Gather facts'],
      ['task_card', 'step_2', 'Write draft'],
      ['task_card', 'step_3', 'Check the draft against the brief'],
    ]);
    expect(planOf(first)?.title).toBe('0 of 3 steps complete');
    steps.release('gather_facts');
    await planReads('complete in_progress pending');
    steps.release('write_draft');
    await planReads('complete complete in_progress');
    steps.release('check_draft');
    const done = await until('root says done', () =>
      updatesOf(thread).find((u) => JSON.stringify(u.blocks).includes('Done')),
    );
    expect(statusesIn(done)).toBe('complete complete complete');
    expect(planOf(done)?.title).toBe('3 of 3 steps complete');
    expect(slack.refusals).toEqual([]);
  });

  it('Stop on a working task cancels it, and the step it cut short says who stopped it', async () => {
    const steps = holdSteps('beta');
    const { thread, planReads } = await start('beta draft the note');
    await steps.started('gather_facts');
    steps.release('gather_facts');
    const working = await planReads('complete in_progress pending');
    const stop = buttons(working as unknown as Post).find(
      (b) => b.action_id === 'signoff_cancel',
    ) as unknown as {
      text: { text: string };
      confirm: { title: { text: string } };
    };
    expect(stop.text.text).toBe('Stop');
    expect(stop.confirm.title.text).toBe('Stop this task?');

    await postSigned(file.events, click('U0ANN', 'signoff_cancel', 'task', thread));
    const stopped = await until('root says cancelled', () =>
      updatesOf(thread).find((u) => JSON.stringify(u.blocks).includes('Cancelled')),
    );
    expect(statusesIn(stopped)).toBe('complete error pending');
    expect(planOf(stopped)?.tasks?.[1]?.details).toEqual({
      type: 'rich_text',
      elements: [
        {
          type: 'rich_text_section',
          elements: [
            { type: 'text', text: 'Stopped by ' },
            { type: 'user', user_id: 'U0ANN' },
          ],
        },
      ],
    });
    expect(JSON.stringify(stopped.blocks)).not.toContain('signoff_cancel');
    const task = (await file.service.signoff.engine.listTasks()).find(
      (t) => t.text === 'beta draft the note',
    );
    expect(task?.status).toBe('cancelled');
    expect(slack.refusals).toEqual([]);
    steps.releaseAll();
  });
});
