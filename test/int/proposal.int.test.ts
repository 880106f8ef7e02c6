/**
 * Workflow proposal (seed 004) through the engine with the offline model, and the documents it
 * searches (`signoff docs add`): query override, parallel reviews, the revision limit, approval,
 * rejection, and an empty collection said plainly.
 */
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProposalStateType } from '../../src/workflows/proposal/proposal-state.js';
import { harnessPerFile, recordingModels } from '../helpers/harness.js';

const models = recordingModels();
const t = harnessPerFile('proposal', () => ({
  yaml: 'workflows:\n  proposal:\n    collection: energy\n',
  modelFor: models.modelFor,
}));
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'docs');
/** The documents the proposal tests search; each test loads them (in place if already there). */
const loadEnergy = () => t.h.documents.addFolder(FIXTURES, 'energy');

const said = (taskId: string) =>
  t.h.delivered
    .filter((e) => e.taskId === taskId && e.event.type === 'agent_said')
    .map((e) => ({ key: e.key, ...(e.event as { agent: string; text: string }) }));
const stateOf = async (taskId: string) =>
  (await t.h.checkpointer.getTuple({ configurable: { thread_id: taskId } }))?.checkpoint
    .channel_values as unknown as ProposalStateType;
const decide = (reviewId: string, action: 'approve' | 'revise' | 'reject', feedback?: string) =>
  t.h.engine.decide({ reviewId, actor: { id: 'bob' }, action, feedback });

/** Query review → insight review → on to the plan; returns the first final review. */
async function throughResearch(taskId: string, customQuery?: string) {
  const query = await t.h.nextReview(taskId);
  expect(query.request.kind).toBe('query_review');
  await decide(query.id, customQuery ? 'revise' : 'approve', customQuery);
  const insight = await t.h.nextReview(taskId, query.id);
  expect(insight.request.kind).toBe('insight_review');
  await decide(insight.id, 'approve');
  return t.h.nextReview(taskId, insight.id);
}

describe('documents', () => {
  it('adds a folder as a collection, updates in place, and finds passages by document name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'energy-'));
    cpSync(FIXTURES, dir, { recursive: true });
    expect(await t.h.documents.addFolder(dir, 'energy')).toEqual({ collection: 'energy', files: 2 });
    writeFileSync(
      join(dir, 'notes', 'heat-pumps.txt'),
      'Heat pumps: ground source loops and their drilling costs.',
    );
    expect((await t.h.documents.addFolder(dir, 'energy')).files).toBe(2);
    expect(await t.h.documents.count('energy')).toBe(2);
    const found = await t.h.documents.search('energy', 'battery degradation forecasting');
    expect(found[0]?.name).toBe('solar-storage.md');
    expect(found[0]?.text).toContain('degradation');
    expect((await t.h.documents.search('energy', 'drilling'))[0]?.name).toBe('notes/heat-pumps.txt');
    expect(await t.h.documents.search('energy', 'compressors')).toEqual([]);
  });
});

describe('proposal', () => {
  it('a typed query overrides the generated one, is searched, and the passages are cited', async () => {
    await loadEnergy();
    const task = await t.h.start('proposal', 'home energy storage');
    const final = await throughResearch(task.id, 'battery degradation');
    expect(final.request.kind).toBe('final_review');
    const state = await stateOf(task.id);
    expect(state.searchQueries).toEqual(['battery degradation']);
    const search = said(task.id).find((s) => s.agent === 'Librarian');
    expect(search?.text).toContain('**Search:** "battery degradation"');
    expect(search?.text).toContain('Sources: [solar-storage.md]');
  });

  it('runs the novelty and feasibility reviews side by side, in the same step', async () => {
    await loadEnergy();
    const task = await t.h.start('proposal', 'heat pump retrofits');
    await throughResearch(task.id);
    const reviews = said(task.id).filter((s) => s.agent.endsWith('reviewer'));
    expect(reviews.map((r) => r.agent).sort()).toEqual(['Feasibility reviewer', 'Novelty reviewer']);
    const step = (key: string) => key.split(':')[1];
    expect(step(reviews[0]?.key ?? 'a')).toBe(step(reviews[1]?.key ?? 'b'));
  });

  it('stops at the revision limit and says so; a later cycle never repeats a query', async () => {
    await loadEnergy();
    const task = await t.h.start('proposal', 'community solar');
    // Search more once: a second query cycle.
    const q1 = await t.h.nextReview(task.id);
    await decide(q1.id, 'approve');
    const i1 = await t.h.nextReview(task.id, q1.id);
    await decide(i1.id, 'reject', 'more on storage costs');
    const q2 = await t.h.nextReview(task.id, i1.id);
    expect(q2.request.kind).toBe('query_review');
    // "Search more, saying why": the Query generator was given the why for the second query.
    const asked = models.calls
      .filter((c) => c.messages.some((m) => String(m.content).includes('community solar')))
      .map((c) => c.messages.map((m) => String(m.content)).join('\n'))
      .filter((prompt) => prompt.includes('What the person wants searched next'));
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('What the person wants searched next: more on storage costs');
    await decide(q2.id, 'approve');
    const i2 = await t.h.nextReview(task.id, q2.id);
    await decide(i2.id, 'approve');
    const state = await stateOf(task.id);
    expect(state.searchQueries).toHaveLength(2);
    expect(new Set(state.searchQueries).size).toBe(2);
    expect(state.literatureSummaries).toHaveLength(2);

    let review = await t.h.nextReview(task.id, i2.id);
    for (const feedback of ['tighten the budget', 'add a pilot site']) {
      await decide(review.id, 'revise', feedback);
      const next = await t.h.waitFor(task.id, (x) => x.status !== 'working');
      if (next.status !== 'waiting') break;
      review = await t.h.nextReview(task.id, review.id);
    }
    const done = await t.h.waitFor(task.id, (x) => x.status !== 'working' && x.status !== 'waiting');
    // Not a green "Done": it ended without approval.
    expect(done.status).toBe('stopped');
    expect(done.statusReason).toBe('revision limit reached: 3 drafts');
    await t.h.shown(task.id);
    expect(said(task.id).at(-1)?.text).toContain('the limit is 3');
  });

  it('approval by the chair when the feedback says so; rejection by a person', async () => {
    await loadEnergy();
    const task = await t.h.start('proposal', 'smart thermostats');
    const final = await throughResearch(task.id);
    await decide(final.id, 'revise', 'good now, approved');
    const done = await t.h.waitFor(task.id, (x) => x.status !== 'working');
    expect(done).toMatchObject({ status: 'done', statusReason: 'approved' });

    const other = await t.h.start('proposal', 'district heating');
    await decide((await throughResearch(other.id)).id, 'reject');
    expect((await t.h.waitFor(other.id, (x) => x.status !== 'working')).status).toBe('rejected');
  });

  it('with no documents in its collection it says so instead of citing anything', async () => {
    const h = t.h;
    const task = await h.start('proposal', 'tidal power');
    // The "energy" collection has documents; point this run at an empty one through its query.
    await h.db.pool.query(
      `UPDATE signoff.documents SET collection = 'energy-away' WHERE collection = 'energy'`,
    );
    try {
      await throughResearch(task.id);
      const search = said(task.id).find((s) => s.agent === 'Librarian');
      expect(search?.text).toContain('No documents in the collection "energy"');
      expect(search?.text).toContain('signoff docs add <folder>');
      expect(search?.text).not.toContain('Sources:');
    } finally {
      await h.db.pool.query(
        `UPDATE signoff.documents SET collection = 'energy' WHERE collection = 'energy-away'`,
      );
    }
  });
});
