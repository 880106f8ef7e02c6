/**
 * Rules on what is asked (`checkpoints.<name>.rules` in the config file) on a real database,
 * through the `ask` workflow's tool calls: a large payment needs two approvals, a small one is
 * approved by its rule at once, a condition that cannot be told never lowers the bar (it fires the
 * rules that ask for people; a payee's name sent as a number too), and a rule
 * that asks for people wins over one that approves. Every rule that fired is in the audit.
 */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/engine/types.js';
import { harnessPerFile } from '../helpers/harness.js';

const YAML = `workflows:
  ask:
    checkpoints:
      review:
        reviewers: [U0ALICE, U0BOB]
        rules:
          - name: urgent asks
            when: output.ask.title.startsWith("Urgent")
            approvals: 2
      tool_call:
        reviewers: [U0ALICE, U0BOB, U0CAROL]
        rules:
          - name: large payments
            when: tool == "pay" && args.amount > 1000
            approvals: 2
          - name: unknown amounts
            when: args.amount > 1000000
            approvals: 3
          - name: small payments
            when: tool == "pay" && args.amount <= 20
            approve: true
          - name: payments to new payees
            when: tool == "pay" && args.payee.startsWith("new:")
            reviewers: [U0CAROL]
`;

const t = harnessPerFile('review_rules', () => ({ yaml: YAML }));

/** An agent's ask through the API: `input` is the ask's (a title, and content or a tool call). */
const ask = (input: { title: string } & Record<string, unknown>) =>
  t.h.engine
    .start({ workflow: 'ask', text: input.title, requester: 'api:books', surface: 'cli', door: 'api', input })
    .then((r) => r.task);

const pay = (args: Record<string, unknown>, title = 'Pay the invoice') =>
  ask({ title, toolCall: { name: 'pay', arguments: args } });

const trail = async (taskId: string) =>
  (
    await t.h.db.pool.query<{
      review_id: string;
      actor: string;
      action: string;
      detail: Record<string, string>;
    }>('SELECT review_id, actor, action, detail FROM signoff.audit WHERE task_id = $1 ORDER BY id', [taskId])
  ).rows;

const finished = (task: Task) => t.h.waitFor(task.id, (x) => x.status === 'done' || x.status === 'rejected');

describe('rules on what a review asks', () => {
  it('a payment of 5,000 needs two approvals by its rule: one counts, the second decides; the rule is in the audit', async () => {
    const task = await pay({ amount: 5000, payee: 'acme' });
    const review = await t.h.nextReview(task.id);
    expect(review.settings).toMatchObject({ approvals: 2, ruled: ['large payments'] });
    await t.h.engine.decide({ reviewId: review.id, actor: { id: 'U0ALICE' }, action: 'approve' });
    expect((await t.h.engine.getTask(task.id))?.status).toBe('waiting');
    await t.h.engine.decide({ reviewId: review.id, actor: { id: 'U0BOB' }, action: 'approve' });
    expect((await finished(task)).status).toBe('done');
    const rows = await trail(task.id);
    expect(rows.find((r) => r.action === 'rule')).toMatchObject({
      review_id: review.id,
      actor: 'signoff',
      detail: { automatic: 'rule "large payments"', reason: '2 approvals' },
    });
    expect(rows.filter((r) => r.action === 'approve').map((r) => r.actor)).toEqual(['U0ALICE', 'U0BOB']);
  });

  it('a payment of 15 is approved by its rule at once, nobody asked; the decision names the rule and the audit has both', async () => {
    const task = await pay({ amount: 15, payee: 'acme' });
    expect((await finished(task)).status).toBe('done');
    const [review] = await t.h.engine.reviews(task.id, 'decided');
    expect(review?.decision).toMatchObject({
      action: 'approve',
      by: 'signoff',
      rule: { name: 'small payments' },
      automatic: 'rule "small payments" of the config file',
    });
    expect(review?.decision?.contentHash).toMatch(/.+/);
    await t.h.shown(task.id);
    const events = (await t.h.engine.events(task.id)).map((e) => e.event.type);
    // The card is shown, and shown decided: the thread says what the rule let through.
    expect(events).toContain('review_requested');
    expect(events).toContain('review_decided');
    const rows = await trail(task.id);
    expect(rows.map((r) => [r.action, r.actor])).toEqual(
      expect.arrayContaining([
        ['rule', 'signoff'],
        ['approve', 'signoff'],
      ]),
    );
    expect(rows.find((r) => r.action === 'approve')?.detail.automatic).toBe(
      'rule "small payments" of the config file',
    );
  });

  it('a call without an amount: the rules that ask for people fire (said so in the audit), the one that approves does not', async () => {
    const task = await pay({ payee: 'acme' });
    const review = await t.h.nextReview(task.id);
    // Both rules on amounts raise the bar; the most approvals either asks for applies.
    expect(review.settings).toMatchObject({ approvals: 3, ruled: ['large payments', 'unknown amounts'] });
    const rules = (await trail(task.id)).filter((r) => r.action === 'rule');
    expect(rules.map((r) => r.detail.reason)).toEqual([
      expect.stringMatching(/^2 approvals \(its condition could not be told: No such key: amount/),
      expect.stringMatching(/^3 approvals \(its condition could not be told: No such key: amount/),
    ]);
    await t.h.engine.cancel(task.id, { id: 'api:books' });
  });

  it('a small payment to a new payee: the rule asking for Carol wins over the one that approves', async () => {
    const task = await pay({ amount: 10, payee: 'new:eve' });
    const review = await t.h.nextReview(task.id);
    expect(review.settings).toMatchObject({
      reviewers: ['U0CAROL'],
      ruled: ['small payments', 'payments to new payees'],
    });
    await expect(
      t.h.engine.decide({ reviewId: review.id, actor: { id: 'U0ALICE' }, action: 'approve' }),
    ).rejects.toMatchObject({ code: 'not_allowed' });
    await t.h.engine.decide({ reviewId: review.id, actor: { id: 'U0CAROL' }, action: 'approve' });
    expect((await finished(task)).status).toBe('done');
  });

  it('a review asking for stricter rules through its door is never approved by a rule', async () => {
    const task = await ask({
      title: 'Pay 5',
      toolCall: { name: 'pay', arguments: { amount: 5, payee: 'acme' } },
      rules: { approvals: 2 },
    });
    const review = await t.h.nextReview(task.id);
    expect(review.settings).toMatchObject({ approvals: 2, ruled: ['small payments'] });
    expect(review.status).toBe('pending');
    await t.h.engine.cancel(task.id, { id: 'api:books' });
  });

  it('a payee that is not text fails closed: the rule naming Carol fires, its error in the audit', async () => {
    const task = await pay({ amount: 10, payee: 42 });
    const review = await t.h.nextReview(task.id);
    expect(review.settings).toMatchObject({ reviewers: ['U0CAROL'] });
    const rule = (await trail(task.id)).find((r) => r.detail.automatic === 'rule "payments to new payees"');
    expect(rule?.detail.reason).toMatch(/^reviewers U0CAROL \(its condition could not be told: /);
    await t.h.engine.cancel(task.id, { id: 'api:books' });
  });

  it("a rule on the workflow's structured output (its state as the review opens) fires on it", async () => {
    const urgent = await ask({ title: 'Urgent: rotate the keys', content: 'Check.' });
    expect((await t.h.nextReview(urgent.id)).settings).toMatchObject({
      approvals: 2,
      ruled: ['urgent asks'],
    });
    const calm = await ask({ title: 'Rotate the keys next week', content: 'Check.' });
    expect((await t.h.nextReview(calm.id)).settings).toMatchObject({ approvals: 1 });
    for (const task of [urgent, calm]) await t.h.engine.cancel(task.id, { id: 'api:books' });
  });

  it('an edit that raises a payment past a tier is refused with a sentence; one within it approves the edited call', async () => {
    const task = await pay({ amount: 500, payee: 'acme' });
    const review = await t.h.nextReview(task.id);
    expect(review.settings.ruled).toBeUndefined();
    const edit = (amount: number) =>
      t.h.engine.decide({
        reviewId: review.id,
        actor: { id: 'U0ALICE' },
        action: 'edit',
        values: { args_0: JSON.stringify({ amount, payee: 'acme' }) },
      });
    await expect(edit(5000)).rejects.toMatchObject({
      code: 'invalid_decision',
      message: expect.stringMatching(/falls under the checkpoint's rule "large payments" \(2 approvals\)/),
    });
    expect((await t.h.engine.reviews(task.id, 'pending')).map((r) => r.id)).toEqual([review.id]);
    await edit(600);
    expect((await finished(task)).status).toBe('done');
  });
});
