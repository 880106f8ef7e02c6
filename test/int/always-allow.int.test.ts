/**
 * "Approve and always allow…" on a real database: a reviewer approves a call and proposes a rule
 * in one step; the rule does nothing until two of the people `alwaysAllow` names sign it off (its
 * proposer not among them); then the next matching review is approved by it at once, once,
 * named on the decision and in the audit; a review it does not cover still waits; a revoked rule
 * approves nothing more.
 */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/engine/types.js';
import { harnessPerFile } from '../helpers/harness.js';

const YAML = `alwaysAllow:
  reviewers: [U0ADMIN, U0CFO, U0LEAD]
  approvals: 2
  expiresAfter: 30d
workflows:
  ask:
    checkpoints:
      tool_call: { reviewers: [U0LEAD, U0BOB] }
`;

const t = harnessPerFile('always_allow', () => ({ yaml: YAML }));

const call = (tool: string, args: Record<string, unknown>) =>
  t.h.engine
    .start({
      workflow: 'ask',
      text: `${tool} ${JSON.stringify(args)}`,
      requester: 'api:ops',
      surface: 'cli',
      door: 'api',
      input: { title: `Run ${tool}`, toolCall: { name: tool, arguments: args } },
    })
    .then((r) => r.task);

const done = (task: Task) => t.h.waitFor(task.id, (x) => x.status === 'done');

describe('always allow', () => {
  it('a proposed rule applies only once signed off, then approves the next matching call by itself, and no more once revoked', async () => {
    const first = await call('restart_service', { name: 'web' });
    const review = await t.h.nextReview(first.id);
    const scopes = t.h.engine.rules.scopes(review, first);
    expect(scopes.map((s) => s.kind)).toEqual(['task', 'workflow', 'tool', 'call']);

    // Approving with "always allow this tool" approves this call and proposes the rule.
    const proposed = await t.h.engine.rules.propose({
      reviewId: review.id,
      actor: { id: 'U0LEAD' },
      scope: 'tool',
    });
    expect(proposed.review.status).toBe('decided');
    expect(proposed.rule).toMatchObject({
      status: 'proposed',
      proposedBy: 'U0LEAD',
      scope: { kind: 'tool', tool: 'restart_service' },
    });
    await done(first);

    // Proposed, not signed off: the next call waits for a person.
    const second = await call('restart_service', { name: 'api' });
    const waiting = await t.h.nextReview(second.id);
    expect(waiting.status).toBe('pending');

    const id = proposed.rule.id;
    await expect(t.h.engine.rules.decide(id, { id: 'U0LEAD' }, 'approve')).rejects.toMatchObject({
      code: 'not_allowed',
      message: expect.stringMatching(/you proposed this rule/),
    });
    await expect(t.h.engine.rules.decide(id, { id: 'U0BOB' }, 'approve')).rejects.toMatchObject({
      code: 'not_allowed',
    });
    expect(await t.h.engine.rules.decide(id, { id: 'U0ADMIN' }, 'approve')).toMatchObject({
      status: 'proposed',
    });
    await expect(t.h.engine.rules.decide(id, { id: 'U0ADMIN' }, 'approve')).rejects.toMatchObject({
      code: 'counted_already',
    });
    const active = await t.h.engine.rules.decide(id, { id: 'U0CFO' }, 'approve');
    expect(active).toMatchObject({ status: 'active', approvals: [{ by: 'U0ADMIN' }, { by: 'U0CFO' }] });
    expect(Date.parse(active.expiresAt ?? '') - Date.parse(active.decidedAt ?? '')).toBe(30 * 86_400_000);

    // A review already waiting is left to people; the next one opened is approved by the rule.
    expect((await t.h.engine.reviews(second.id, 'pending')).map((r) => r.id)).toEqual([waiting.id]);
    const third = await call('restart_service', { name: 'worker' });
    await done(third);
    const [byRule] = await t.h.engine.reviews(third.id, 'decided');
    expect(byRule?.decision).toMatchObject({
      by: 'signoff',
      rule: { id, proposedBy: 'U0LEAD', approvedBy: ['U0ADMIN', 'U0CFO'] },
      automatic: `rule #${id} (proposed by U0LEAD, approved by U0ADMIN and U0CFO)`,
    });
    // Another tool is not covered.
    const other = await call('drop_table', { name: 'users' });
    expect((await t.h.nextReview(other.id)).status).toBe('pending');

    const revoked = await t.h.engine.rules.revoke(id, { id: 'U0ADMIN' });
    expect(revoked).toMatchObject({ status: 'revoked', revokedBy: 'U0ADMIN', applied: 1 });
    const fourth = await call('restart_service', { name: 'cron' });
    expect((await t.h.nextReview(fourth.id)).status).toBe('pending');
    await expect(t.h.engine.rules.decide(id, { id: 'U0CFO' }, 'approve')).rejects.toMatchObject({
      code: 'rule_closed',
    });

    const trail = (
      await t.h.db.pool.query<{ actor: string; action: string }>(
        `SELECT actor, action FROM signoff.audit WHERE detail->>'rule' = $1 OR (task_id = $2 AND action = 'approve') ORDER BY id`,
        [String(id), third.id],
      )
    ).rows.map((r) => `${r.action} ${r.actor}`);
    expect(trail).toEqual([
      'rule_propose U0LEAD',
      'refused:rule_approve U0LEAD',
      'refused:rule_approve U0BOB',
      'rule_approve U0ADMIN',
      'refused:rule_approve U0ADMIN',
      'rule_approve U0CFO',
      'approve signoff',
      'rule_revoke U0ADMIN',
      'refused:rule_approve U0CFO',
    ]);
    for (const task of [second, other, fourth]) await t.h.engine.cancel(task.id, { id: 'api:ops' });
  });

  it('a proposal refused with its approval: a reviewer who may not approve proposes nothing', async () => {
    const task = await call('restart_service', { name: 'db' });
    const review = await t.h.nextReview(task.id);
    // Nor a scope the review does not offer (a content review has no tool): refused, audited.
    const content = (
      await t.h.engine.start({
        workflow: 'ask',
        text: 'Ship it?',
        requester: 'api:ops',
        surface: 'cli',
        door: 'api',
        input: { title: 'Ship it?', content: 'Now.' },
      })
    ).task;
    const asked = await t.h.nextReview(content.id);
    await expect(
      t.h.engine.rules.propose({ reviewId: asked.id, actor: { id: 'U0LEAD' }, scope: 'tool' }),
    ).rejects.toMatchObject({ code: 'rules_off' });
    expect((await t.h.engine.reviews(content.id, 'pending')).length).toBe(1);
    const audited = await t.h.db.pool.query(
      `SELECT 1 FROM signoff.audit WHERE review_id = $1 AND action = 'refused:rule_propose'`,
      [asked.id],
    );
    expect(audited.rowCount).toBe(1);
    await t.h.engine.cancel(content.id, { id: 'api:ops' });
    await expect(
      t.h.engine.rules.propose({ reviewId: review.id, actor: { id: 'U0MALLORY' }, scope: 'workflow' }),
    ).rejects.toMatchObject({ code: 'not_allowed' });
    expect(await t.h.engine.rules.list(['proposed', 'active', 'refused', 'revoked'])).not.toContainEqual(
      expect.objectContaining({ reviewId: review.id }),
    );
    expect((await t.h.engine.reviews(task.id, 'pending')).length).toBe(1);
    await t.h.engine.cancel(task.id, { id: 'api:ops' });
  });

  it('a rule for exactly these arguments covers that call and no other; a refused proposal approves nothing', async () => {
    const a = await call('send_report', { to: 'board', quarter: 'Q3' });
    const ra = await t.h.nextReview(a.id);
    const { rule } = await t.h.engine.rules.propose({
      reviewId: ra.id,
      actor: { id: 'U0BOB' },
      scope: 'call',
    });
    await t.h.engine.rules.decide(rule.id, { id: 'U0ADMIN' }, 'approve');
    await t.h.engine.rules.decide(rule.id, { id: 'U0LEAD' }, 'approve');
    // The same arguments in another order: covered.
    const same = await call('send_report', { quarter: 'Q3', to: 'board' });
    await done(same);
    const changed = await call('send_report', { to: 'press', quarter: 'Q3' });
    expect((await t.h.nextReview(changed.id)).status).toBe('pending');

    const b = await call('rotate_keys', { all: true });
    const rb = await t.h.nextReview(b.id);
    const refused = (
      await t.h.engine.rules.propose({ reviewId: rb.id, actor: { id: 'U0BOB' }, scope: 'tool' })
    ).rule;
    expect(await t.h.engine.rules.decide(refused.id, { id: 'U0CFO' }, 'reject')).toMatchObject({
      status: 'refused',
    });
    const again = await call('rotate_keys', { all: true });
    expect((await t.h.nextReview(again.id)).status).toBe('pending');
    for (const task of [changed, again]) await t.h.engine.cancel(task.id, { id: 'api:ops' });
  });

  it('arguments too long for a rule’s message to show whole get no rule for exactly them (a tool’s still may be)', async () => {
    const long = await call('run_script', { script: `${'echo ok; '.repeat(120)}rm -rf /` });
    const review = await t.h.nextReview(long.id);
    expect(t.h.engine.rules.scopes(review, long).map((s) => s.kind)).toEqual(['task', 'workflow', 'tool']);
    await expect(
      t.h.engine.rules.propose({ reviewId: review.id, actor: { id: 'U0BOB' }, scope: 'call' }),
    ).rejects.toMatchObject({ code: 'rules_off' });
    // Refused whole: the approval it came with was not made either.
    expect((await t.h.nextReview(long.id)).status).toBe('pending');
    await t.h.engine.cancel(long.id, { id: 'api:ops' });
    // Short as JSON, long as shown: each run of backticks is shown as escapes, & as an entity.
    const marked = await call('run_script', { md: 'x```&'.repeat(190) });
    const shown = await t.h.nextReview(marked.id);
    expect(t.h.engine.rules.scopes(shown, marked).map((s) => s.kind)).not.toContain('call');
    await t.h.engine.cancel(marked.id, { id: 'api:ops' });
  });

  it('reviews opening while the rule is revoked: none deadlocks, each is approved by it (before) or waits (after), and it counts exactly those', async () => {
    const seed = await call('purge_cache', { region: 'eu' });
    const first = await t.h.nextReview(seed.id);
    const { rule } = await t.h.engine.rules.propose({
      reviewId: first.id,
      actor: { id: 'U0BOB' },
      scope: 'tool',
    });
    await t.h.engine.rules.decide(rule.id, { id: 'U0ADMIN' }, 'approve');
    await t.h.engine.rules.decide(rule.id, { id: 'U0CFO' }, 'approve');
    const tasks = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call('purge_cache', { region: `r${i}` })),
    );
    await new Promise((r) => setTimeout(r, 30));
    await t.h.engine.rules.revoke(rule.id, { id: 'U0BOB' });
    const settled = await Promise.all(
      tasks.map((task) => t.h.waitFor(task.id, (x) => x.status === 'done' || x.status === 'waiting')),
    );
    const byRule = (
      await Promise.all(settled.map(async (x) => (await t.h.engine.reviews(x.id, 'decided'))[0]))
    ).filter((r) => r?.decision?.rule?.id === rule.id);
    expect(byRule.length).toBe(settled.filter((x) => x.status === 'done').length);
    const [after] = await t.h.engine.rules.list(['revoked']);
    expect(after?.applied).toBe(byRule.length);
    for (const x of settled.filter((y) => y.status === 'waiting'))
      await t.h.engine.cancel(x.id, { id: 'api:ops' });
  });
});
