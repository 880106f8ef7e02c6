/**
 * Seed 004's "never repeat a query" with a model that always answers the same query: it is asked
 * again (bounded), then the person is told plainly and asked for one; a query the person types
 * that was searched before is refused before anything is recorded (the review stays as it was,
 * undecided), and a new one is searched.
 */
import { AIMessageChunk } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import type { ModelFor } from '../../src/llm/models.js';
import { ScriptedChatModel } from '../../src/llm/scripted.js';
import { harnessPerFile } from '../helpers/harness.js';

const SAME = 'battery storage costs';
let queryCalls = 0;

/** The offline model, except that the query generator always answers the same query. */
const repeating: ModelFor = ({ name }) => {
  const model = new ScriptedChatModel({ agent: name });
  if (name !== 'Query generator') return model;
  const bind = model.bindTools.bind(model);
  model.bindTools = (tools) => {
    const bound = bind(tools);
    const tool = tools[0] as { name?: string; function?: { name: string } };
    bound._generate = async () => {
      queryCalls += 1;
      const call = {
        id: `call_${queryCalls}`,
        name: tool.function?.name ?? tool.name ?? 'query',
        args: { query: SAME },
        type: 'tool_call' as const,
      };
      return {
        generations: [{ text: '', message: new AIMessageChunk({ content: '', tool_calls: [call] }) }],
      };
    };
    return bound;
  };
  return model;
};

const t = harnessPerFile('proposal_repeats', () => ({ modelFor: repeating }));
const decide = (reviewId: string, action: 'approve' | 'revise' | 'reject', feedback?: string) =>
  t.h.engine.decide({ reviewId, actor: { id: 'bob' }, action, feedback });
const searches = (taskId: string) =>
  t.h.delivered
    .filter((e) => e.taskId === taskId && e.event.type === 'agent_said')
    .map((e) => (e.event as { text: string }).text)
    .filter((text) => text.startsWith('**Search:**'));

describe('proposal with a model that repeats itself', () => {
  it('never searches a query twice: asks the model again, then the person, and refuses a typed repeat', async () => {
    const task = await t.h.start('proposal', 'home energy storage');
    const q1 = await t.h.nextReview(task.id);
    expect(q1.request.body).toContain(`**Next search:** ${SAME}`);
    await decide(q1.id, 'approve');
    const i1 = await t.h.nextReview(task.id, q1.id);
    await decide(i1.id, 'reject'); // search more
    queryCalls = 0;

    const q2 = await t.h.nextReview(task.id, i1.id);
    expect(queryCalls).toBe(3); // asked, then asked again twice
    expect(q2.request.body).toContain('**No new query:** the query generator only repeated earlier ones');
    await expect(decide(q2.id, 'revise', '  Battery   STORAGE costs ')).rejects.toThrow(
      'Nothing was recorded: "Battery   STORAGE costs" was searched before, so it would find nothing new; type another query, or continue.',
    );
    // Refused, not decided: the same review waits, with no decision that a surface would echo.
    expect((await t.h.engine.review(q2.id))?.review).toMatchObject({ status: 'pending', decision: null });
    await decide(q2.id, 'revise', 'grid tariffs for home batteries');
    await t.h.nextReview(task.id, q2.id); // the insight review after the search
    await t.h.shown(task.id);
    expect(searches(task.id).map((s) => s.split('\n')[0])).toEqual([
      `**Search:** "${SAME}"`,
      '**Search:** "grid tariffs for home batteries"',
    ]);
  });

  it('continuing without a new query searches nothing again', async () => {
    const task = await t.h.start('proposal', 'heat pumps');
    const q1 = await t.h.nextReview(task.id);
    await decide(q1.id, 'approve');
    const i1 = await t.h.nextReview(task.id, q1.id);
    await decide(i1.id, 'reject');
    const q2 = await t.h.nextReview(task.id, i1.id);
    await decide(q2.id, 'approve');
    await t.h.nextReview(task.id, q2.id);
    await t.h.shown(task.id);
    expect(searches(task.id)).toHaveLength(1);
  });

  it('a typed query of punctuation alone is refused before anything is recorded, saying it has no words to search for (not that it was searched before); a query with words is then searched', async () => {
    const task = await t.h.start('proposal', 'solar canopies');
    const q1 = await t.h.nextReview(task.id);
    await expect(decide(q1.id, 'revise', ' ?!… ')).rejects.toThrow(
      'Nothing was recorded: "?!…" has no words to search for; type a query with words, or continue.',
    );
    expect((await t.h.engine.review(q1.id))?.review).toMatchObject({ status: 'pending', decision: null });
    await decide(q1.id, 'revise', 'carport solar yield');
    await t.h.nextReview(task.id, q1.id);
    await t.h.shown(task.id);
    expect(searches(task.id).map((s) => s.split('\n')[0])).toEqual(['**Search:** "carport solar yield"']);
  });
});
