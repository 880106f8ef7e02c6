/**
 * Declared workflows through the engine on Postgres: approve goes to the next stage, revise back to
 * `onRevise` with the feedback, reject ends it rejected, `maxRevisions` ends it stopped; a parallel
 * stage runs its agents in one graph step.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { harnessPerFile } from '../helpers/harness.js';

const YAML = readFileSync(
  join(import.meta.dirname, '..', '..', 'examples', 'declared', 'release-notes.yml'),
  'utf8',
);
const t = harnessPerFile('declared', () => ({ yaml: YAML }));
const decide = (reviewId: string, action: 'approve' | 'revise' | 'reject', feedback?: string) =>
  t.h.engine.decide({ reviewId, actor: { id: 'bob' }, action, feedback });
const said = (taskId: string) =>
  t.h.delivered
    .filter((e) => e.taskId === taskId && e.event.type === 'agent_said')
    .map((e) => ({ key: e.key, ...(e.event as { agent: string; text: string }) }));

describe('a declared workflow (examples/declared/release-notes.yml)', () => {
  it('approve goes stage by stage; the parallel checks run in one step; approval at the end is done', async () => {
    const task = await t.h.start('release-notes', 'v2.3: export to CSV');
    const draft = await t.h.nextReview(task.id);
    expect(draft.checkpoint).toBe('draft_review');
    await decide(draft.id, 'approve');
    const final = await t.h.nextReview(task.id, draft.id);
    expect(final.checkpoint).toBe('final_review');
    expect(final.settings.timeoutSeconds).toBe(86_400); // the checkpoint's own settings
    await t.h.shown(task.id);
    const checks = said(task.id).filter((s) => s.agent === 'Product' || s.agent === 'Legal');
    expect(checks.map((c) => c.agent).sort()).toEqual(['Legal', 'Product']);
    const step = (key: string) => key.split(':')[1];
    expect(step(checks[0]?.key ?? 'a')).toBe(step(checks[1]?.key ?? 'b'));
    await decide(final.id, 'approve');
    expect((await t.h.waitFor(task.id, (x) => x.status !== 'working')).status).toBe('done');
  });

  it('revise at the final review goes back to the draft with the feedback; reject ends it rejected', async () => {
    const task = await t.h.start('release-notes', 'v2.4: SSO');
    await decide((await t.h.nextReview(task.id)).id, 'approve');
    const final = await t.h.nextReview(task.id);
    await decide(final.id, 'revise', 'say what changed for admins');
    const again = await t.h.nextReview(task.id, final.id);
    expect(again.checkpoint).toBe('draft_review');
    expect(again.request.body).toContain('revised to address the feedback "say what changed for admins"');
    await decide(again.id, 'reject');
    const ended = await t.h.waitFor(task.id, (x) => x.status !== 'working');
    expect([ended.status, ended.statusReason]).toEqual(['rejected', 'rejected at review']);
  });

  it('maxRevisions at the final stage ends the task as stopped, saying where', async () => {
    const task = await t.h.start('release-notes', 'v2.5: audit log');
    let review = await t.h.nextReview(task.id);
    for (let round = 1; round <= 3; round++) {
      await decide(review.id, 'approve'); // the draft
      const final = await t.h.nextReview(task.id, review.id);
      await decide(final.id, 'revise', `round ${round}: shorter`);
      const next = await t.h.waitFor(task.id, (x) => x.status !== 'working');
      if (next.status !== 'waiting') break;
      review = await t.h.nextReview(task.id, final.id);
    }
    const ended = await t.h.waitFor(task.id, (x) => x.status !== 'working' && x.status !== 'waiting');
    expect([ended.status, ended.statusReason]).toEqual([
      'stopped',
      'revision limit of the final stage reached',
    ]);
  });
});

describe('the proposal structure, declared (examples/declared/proposal.yml)', () => {
  const proposal = harnessPerFile('declared_proposal', () => ({
    yaml: readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'declared', 'proposal.yml'), 'utf8'),
  }));
  const decideIn = (reviewId: string, action: 'approve' | 'revise', feedback?: string) =>
    proposal.h.engine.decide({ reviewId, actor: { id: 'bob' }, action, feedback });

  it('the chair judges first; its revise sends the draft to a person, whose feedback goes back to the plan; the limit stops it', async () => {
    const task = await proposal.h.start('proposal-declared', 'community solar');
    const query = await proposal.h.nextReview(task.id);
    expect(query.checkpoint).toBe('query_review');
    await decideIn(query.id, 'approve');
    const insight = await proposal.h.nextReview(task.id, query.id);
    expect(insight.checkpoint).toBe('insight_review');
    await decideIn(insight.id, 'approve');
    let review = await proposal.h.nextReview(task.id, insight.id);
    for (let round = 1; review.checkpoint === 'final_review' && round <= 3; round++) {
      // The offline chair's verdict follows the latest human message: "revise" until told otherwise.
      await decideIn(review.id, 'revise', `round ${round}: tighten the budget`);
      const next = await proposal.h.waitFor(task.id, (x) => x.status !== 'working');
      if (next.status !== 'waiting') break;
      review = await proposal.h.nextReview(task.id, review.id);
    }
    const ended = await proposal.h.waitFor(task.id, (x) => x.status !== 'working' && x.status !== 'waiting');
    expect([ended.status, ended.statusReason]).toEqual([
      'stopped',
      'revision limit of the reviews stage reached',
    ]);
    await proposal.h.shown(task.id);
    const chair = proposal.h.delivered.filter(
      (e) => e.taskId === task.id && (e.event as { agent?: string }).agent === 'Review chair',
    );
    expect(chair.length).toBeGreaterThanOrEqual(3);
  });

  it("the chair's approval goes on without a person", async () => {
    const task = await proposal.h.start('proposal-declared', 'heat pumps');
    const query = await proposal.h.nextReview(task.id);
    await decideIn(query.id, 'approve');
    const insight = await proposal.h.nextReview(task.id, query.id);
    await decideIn(insight.id, 'approve');
    const final = await proposal.h.nextReview(task.id, insight.id);
    // The person's words reach the chair in the history; the offline chair follows them.
    await decideIn(final.id, 'revise', 'fine once the budget is in; then approve');
    const ended = await proposal.h.waitFor(task.id, (x) => x.status !== 'working');
    expect(ended.status).toBe('done');
    expect((await proposal.h.engine.reviews(task.id)).map((r) => r.checkpoint)).toEqual([
      'query_review',
      'insight_review',
      'final_review',
    ]);
  });
});
