/**
 * "Approve and always allow…" in Slack, through Bolt's HTTP receiver, a real engine and Postgres,
 * and the fake Slack Web API: the card's button opens a modal of the scopes the review offers;
 * sending it approves the call and posts the proposed rule in the thread, which does nothing until
 * two of the people `alwaysAllow` names approve it on its message; then the next such call's card
 * is posted approved by the rule, naming who proposed and who approved it; `/signoff rules` lists
 * it, and the Home tab lists it with Revoke.
 */
import { describe, expect, it } from 'vitest';
import { contentHash } from '../../src/workflows/protocol/content-hash.js';
import { triggerId } from '../helpers/fake-slack-views.js';
import {
  alwaysSubmission,
  appHomeOpened,
  click,
  commandBody,
  homeClick,
  postSigned,
  withTrigger,
} from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { type Post, slackThreads, until } from '../helpers/slack-thread.js';

const YAML = `alwaysAllow:
  reviewers: [U0CAT, U0DAN]
  approvals: 2
workflows:
  mail:
    module: ./test/fixtures/hitl-graph.ts
    checkpoints:
      tool_call: { reviewers: [U0BOB] }
`;

const file = slackPerFile('slack_always_allow', { yaml: YAML });
const { slack } = file;
// A private channel without Cat, who signs rules off (set before any test: who is in which
// channel is kept for a minute once asked).
slack.members.G0SECRET = ['U0ANN', 'U0BOB', 'U0DAN'];
const { cardsIn, rootOf, tsOf, buttons, ephemeralsTo, updatesOf } = slackThreads(slack);
const text = (p: { text?: string; blocks?: unknown[] }) => JSON.stringify(p.blocks ?? p.text);

let n = 0;
async function start() {
  const task = `one mail ${++n}`;
  await postSigned(file.events, commandBody(`mail ${task}`));
  const thread = tsOf(await until('root', () => rootOf(task)));
  return thread;
}

const press = (user: string, post: Post, thread: string, actionId: string, trigger?: string) => {
  const value = buttons(post).find((b) => b.action_id === actionId)?.value ?? '';
  const body = click(user, actionId, value, tsOf(post), thread);
  return postSigned(file.events, trigger ? withTrigger(body, trigger) : body);
};

const said = (user: string, pattern: RegExp) =>
  until(
    `${user} told ${pattern} (told: ${ephemeralsTo(user).join(' | ')})`,
    () => ephemeralsTo(user).find((t) => pattern.test(t)),
    15_000,
  );

describe('always allow in Slack', () => {
  it('Always allow… → a scope → approved and proposed; two admins sign it off on its message; the next call is approved by the rule; /signoff rules lists it and the Home tab revokes it', async () => {
    const thread = await start();
    const card = await until('card', () => cardsIn(thread)[0], 20_000);
    expect(buttons(card).map((b) => b.action_id)).toContain('signoff_always');

    const opened = slack.callsOf('views.update').length;
    await press('U0BOB', card, thread, 'signoff_always', triggerId());
    const modal = await until('the scopes', () => slack.callsOf('views.update')[opened], 10_000);
    const view = modal.view as { private_metadata: string; blocks: unknown[] };
    expect(JSON.stringify(view.blocks)).toMatch(/Every call of send_email by mail in <#C0WORK>/);
    expect(JSON.stringify(view.blocks)).toMatch(/Calls of send_email with exactly these arguments/);
    // Those arguments whole, above the choice: signers approve what they read.
    expect(JSON.stringify(view.blocks)).toMatch(/The arguments, for \\"exactly these\\":.*We ship today/);
    await postSigned(file.events, alwaysSubmission('U0BOB', view.private_metadata, 'tool'));

    await said('U0BOB', /Approved, and rule #1 is proposed/);
    const ruleMessage = await until('the rule message', () =>
      cardsIn(thread).find((p) => /Rule #1/.test(text(p))),
    );
    expect(text(ruleMessage)).toMatch(/always allow every call of send_email by mail in <#C0WORK>/);
    expect(text(ruleMessage)).toMatch(/does nothing until 2 of <@U0CAT>, <@U0DAN> sign it off/);
    await until('the card approved by Bob', () =>
      updatesOf(tsOf(card)).find((u) => /Approved by <@U0BOB>/.test(text(u))),
    );

    // Bob may not sign off his own rule (nor is he one of the signers); the admins may.
    await press('U0BOB', ruleMessage, thread, 'signoff_rule_approve');
    await said('U0BOB', /you are not one of the people who sign off rules/);
    await press('U0CAT', ruleMessage, thread, 'signoff_rule_approve');
    await said('U0CAT', /Your approval of rule #1 is recorded \(1 of 2\)/);
    await press('U0DAN', ruleMessage, thread, 'signoff_rule_approve');
    await said('U0DAN', /Rule #1 is signed off: from now on it approves every call of send_email/);
    await until('the rule message signed off', () =>
      updatesOf(tsOf(ruleMessage)).find((u) => /Signed off by <@U0CAT> and <@U0DAN>/.test(text(u))),
    );

    // The next call: its card is approved by the rule before anyone looks.
    const next = await start();
    await until('the next card decided by the rule', () =>
      [...cardsIn(next), ...slack.callsOf('chat.update')].find((p) =>
        /by rule #1 \(proposed by <@U0BOB>, approved by <@U0CAT> and <@U0DAN>\)/.test(text(p as Post)),
      ),
    );

    await postSigned(file.events, commandBody('rules', 'U0CAT'));
    await said(
      'U0CAT',
      /\*#1\* always allow every call of send_email .* active: signed off by <@U0CAT>, <@U0DAN>, 1 review approved/,
    );
    // The Home tab lists it with Revoke; revoking there says so in a modal and draws the tab again.
    const published = slack.callsOf('views.publish').length;
    await postSigned(file.events, appHomeOpened('U0DAN'), { json: true });
    const tab = await until('the Home tab', () =>
      slack
        .callsOf('views.publish')
        .slice(published)
        .find((c) => /Standing rules/.test(JSON.stringify(c.view))),
    );
    expect(JSON.stringify(tab.view)).toMatch(/signoff_rule_revoke/);
    const notices = slack.callsOf('views.update').length;
    await postSigned(
      file.events,
      withTrigger(homeClick('U0DAN', 'signoff_rule_revoke', '{"rule":1}'), triggerId()),
    );
    await until('the revoke said', () =>
      slack
        .callsOf('views.update')
        .slice(notices)
        .find((c) => /Rule #1 is revoked/.test(JSON.stringify(c.view))),
    );
    await until('the tab drawn without it', () =>
      slack
        .callsOf('views.publish')
        .slice(published + 1)
        .find((c) => c.user_id === 'U0DAN' && !/Standing rules/.test(JSON.stringify(c.view))),
    );
    const third = await start();
    const waiting = await until('the third card', () => cardsIn(third)[0], 20_000);
    expect(buttons(waiting).map((b) => b.action_id)).toContain('signoff_approve');
  });

  it('/signoff rules approve <n> signs off only a rule its signer can see: one proposed in a private channel they are not in is refused and stays unapproved', async () => {
    const engine = file.service.signoff.engine;
    const inSecret = { channel_id: 'G0SECRET', channel_name: 'secret' };
    await postSigned(file.events, commandBody('mail one secret mail', 'U0ANN', inSecret));
    const thread = tsOf(await until('root', () => rootOf('one secret mail')));
    await until('card', () => cardsIn(thread)[0], 20_000);
    const task = await engine.taskAt('slack', { channel: 'G0SECRET', thread });
    const [review] = await engine.reviews(task?.id ?? '', 'pending');
    if (!review) throw new Error('no review');
    // Bob approves the call there and proposes a rule for every such call in that channel.
    const { rule } = await engine.rules.propose({
      reviewId: review.id,
      actor: { id: 'U0BOB' },
      contentHash: contentHash(review.request),
      scope: 'tool',
    });
    // Cat signs rules off but is not in that channel: she has never seen the rule, nor can she.
    await postSigned(file.events, commandBody(`rules approve ${rule.id}`, 'U0CAT'));
    const answer = await until('the answer to Cat', () =>
      ephemeralsTo('U0CAT').find((t) => t.includes(`rule #${rule.id}`)),
    );
    expect(answer).toMatch(new RegExp(`^You can see no rule #${rule.id} here`));
    await postSigned(file.events, commandBody(`rules reject ${rule.id}`, 'U0CAT'));
    await file.service.settled();
    const still = (await engine.rules.list(['proposed'])).find((r) => r.id === rule.id);
    expect(still?.approvals).toEqual([]);
    // Both tries are in the task's audit, as the engine's own refusals of a rule are.
    const tried = [];
    for await (const e of engine.auditTrail({ taskId: task?.id }))
      if (e.who === 'U0CAT') tried.push([e.action, e.result, e.code]);
    expect(tried).toEqual([
      ['rule_approve', 'refused', 'not_allowed'],
      ['rule_reject', 'refused', 'not_allowed'],
    ]);
    // Dan, in that channel, signs it off by its number.
    await postSigned(file.events, commandBody(`rules approve ${rule.id}`, 'U0DAN', inSecret));
    await said('U0DAN', new RegExp(`Your approval of rule #${rule.id} is recorded \\(1 of 2\\)`));
  });
});
