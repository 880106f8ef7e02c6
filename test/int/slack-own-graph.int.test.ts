/**
 * Bring your own graph through Slack: the example under examples/ (a LangChain createAgent whose
 * send_email tool needs approval via humanInTheLoopMiddleware) runs as a configured workflow; its
 * HITLRequest becomes a card; Edit (its own button: an approval of the edited call) opens a form
 * with the arguments, checked against the tool's schema in the form itself; the agent resumes with
 * the decision in its own shape.
 */
import { describe, expect, it } from 'vitest';
import { click, commandBody, postSigned, reviseSubmission } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { type Post, slackThreads, until } from '../helpers/slack-thread.js';

const file = slackPerFile('slack_own_graph', {
  yaml: 'workflows:\n  mailer:\n    module: ./examples/approval-agent/graph.ts\n    description: Sends email once you approve\n',
});
const { slack } = file;
const { posts, cardsIn, rootOf, tsOf, buttons } = slackThreads(slack);

const button = (card: Post, id: string) => buttons(card).find((b) => b.action_id === id);
const inThread = (thread: string) => posts().filter((p) => p.thread_ts === thread);

async function start(text: string) {
  await postSigned(file.events, commandBody(`mailer ${text}`));
  const thread = tsOf(await until('root', () => rootOf(text)));
  const card = await until('tool call card', () => cardsIn(thread)[0]);
  return { thread, card };
}

describe('your own graph (createAgent + humanInTheLoopMiddleware)', () => {
  it('Edit: a form with the arguments, refused in the form when invalid, then the edited call runs', async () => {
    const { thread, card } = await start('email the launch note to the team');
    expect(JSON.stringify(card.blocks)).toContain('Approve send_email?');
    expect(JSON.stringify(card.blocks)).toContain('An email is about to go out');
    expect(buttons(card).map((b) => b.action_id)).toEqual([
      'signoff_approve',
      'signoff_edit',
      'signoff_reject',
      'signoff_claim',
      'signoff_hand_over',
    ]);
    expect(JSON.stringify(buttons(card))).toContain('Edit');

    const before = slack.callsOf('views.update').length;
    await postSigned(
      file.events,
      click('U0BOB', 'signoff_edit', button(card, 'signoff_edit')?.value ?? '', tsOf(card), thread),
    );
    // The modal opens reading the call, then shows its form.
    const opened = await until('the form', () => slack.callsOf('views.update')[before]);
    const view = opened.view as {
      private_metadata: string;
      blocks: { block_id?: string; element?: { initial_value?: string } }[];
    };
    const field = view.blocks.find((b) => b.block_id === 'field_args_0');
    const initial = JSON.parse(field?.element?.initial_value ?? '{}') as Record<string, string>;
    expect(Object.keys(initial).sort()).toEqual(['body', 'subject', 'to']);

    const submit = (json: string) =>
      postSigned(file.events, reviseSubmission('U0BOB', view.private_metadata, '', { field_args_0: json }));
    const notJson = await submit('{not json');
    expect(JSON.parse(notJson.body)).toMatchObject({
      response_action: 'errors',
      errors: { field_args_0: expect.stringContaining('JSON object') },
    });
    const missing = await submit(JSON.stringify({ to: 'team@example.com', subject: 'Launch' }));
    // In words, as the terminal says it too.
    expect(JSON.parse(missing.body).errors.field_args_0).toBe('The arguments need "body".');
    const several = await submit(JSON.stringify({ to: 7, subject: 'Launch' }));
    expect(JSON.parse(several.body).errors.field_args_0).toBe(
      'The arguments need "body". "to" must be text in double quotes.',
    );
    expect(slack.callsOf('chat.update').filter((u) => u.ts === tsOf(card))).toEqual([]);

    const ok = await submit(
      JSON.stringify({ to: 'team@example.com', subject: 'Launch day!', body: 'We ship today.' }),
    );
    expect(ok.status).toBe(200);
    await until('tool result in the thread', () =>
      inThread(thread).find(
        (p) =>
          p.text.includes('Sent \\"Launch day!\\" to team@example.com') ||
          p.text.includes('Sent "Launch day!" to team@example.com'),
      ),
    );
    await until('root says done', () =>
      slack.callsOf('chat.update').find((u) => u.ts === thread && JSON.stringify(u.blocks).includes('Done')),
    );
  });

  it('Reject: the agent is told, nothing is sent', async () => {
    const { thread, card } = await start('email the pricing sheet to a customer');
    await postSigned(
      file.events,
      click('U0BOB', 'signoff_reject', button(card, 'signoff_reject')?.value ?? '', tsOf(card), thread),
    );
    await until('root says done', () =>
      slack.callsOf('chat.update').find((u) => u.ts === thread && JSON.stringify(u.blocks).includes('Done')),
    );
    expect(inThread(thread).some((p) => p.text.includes('Sent "'))).toBe(false);
  });
});
