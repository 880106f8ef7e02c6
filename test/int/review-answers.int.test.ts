/**
 * What a workflow makes of an answer it cannot read, resumed straight through LangGraph on the
 * real Postgres checkpointer (the engine never sends such answers; a custom integration could):
 * refused and the same question asked again, never an approval; a revise that says nothing is
 * never an approval either.
 */
import { Command, INTERRUPT, isInterrupted } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWorkflowConfig, workflowSettings } from '../../src/config/workflows.js';
import { createDocuments } from '../../src/docs/documents.js';
import { ScriptedChatModel } from '../../src/llm/scripted.js';
import { pairWorkflow } from '../../src/workflows/pair/pair-graph.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
let pool: pg.Pool;
let saver: PostgresSaver;
let threads = 0;
beforeAll(async () => {
  db = await createTestDatabase('review_answers');
  pool = new pg.Pool({ connectionString: db.url });
  // An idle client ended by the database's drop at the end is no failure of this file.
  pool.on('error', () => undefined);
  saver = new PostgresSaver(pool, undefined, { schema: 'answers' });
  await saver.setup();
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

function pair() {
  const graph = pairWorkflow.build({
    modelFor: ({ name }) => new ScriptedChatModel({ agent: name }),
    settings: workflowSettings(parseWorkflowConfig('', 'test.yml'), 'pair'),
    checkpointer: saver,
    documents: createDocuments(pool),
  });
  return async (answer?: unknown) => {
    const thread = `answers-${++threads}`;
    const config = { configurable: { thread_id: thread } };
    const first = await graph.invoke(
      pairWorkflow.input({ text: 'name the project', requester: 'U0ANN' }),
      config,
    );
    if (!isInterrupted(first)) throw new Error('the pair graph did not ask for a review');
    const asked = first[INTERRUPT][0]?.id as string;
    const after = await graph.invoke(new Command({ resume: { [asked]: answer } }), config);
    const question = (first[INTERRUPT][0]?.value as { title?: string } | undefined)?.title;
    return {
      asked,
      question,
      after,
      values: (await graph.getState(config)).values as Record<string, unknown>,
    };
  };
}
const nextQuestion = (r: unknown) => (isInterrupted(r) ? r[INTERRUPT][0] : undefined);

describe('answers a workflow cannot read', () => {
  it('a malformed answer is refused: the same question is asked again', async () => {
    const { asked, question, after, values } = await pair()('yes please');
    const again = nextQuestion(after);
    expect(again?.id).toBeTypeOf('string');
    expect(again?.id).not.toBe(asked);
    expect((again?.value as { title?: string } | undefined)?.title).toBe(question);
    expect(question).toMatch(/^Review/);
    expect(values.outcome ?? null).toBeNull();
  });

  it('a reject whose reason is longer than a decision holds is asked again, never taken for an approval', async () => {
    const { asked, after, values } = await pair()({
      action: 'reject',
      feedback: 'no. '.repeat(1000),
      by: 'U0BOB',
      at: 'now',
    });
    expect(nextQuestion(after)?.id).toBeTypeOf('string');
    expect(nextQuestion(after)?.id).not.toBe(asked);
    expect(values.outcome ?? null).toBeNull();
  });

  it('a revise that says nothing is never read as approval', async () => {
    const { asked, after, values } = await pair()({
      action: 'revise',
      feedback: '   ',
      by: 'U0BOB',
      at: 'now',
    });
    expect(nextQuestion(after)?.id).toBeTypeOf('string');
    expect(nextQuestion(after)?.id).not.toBe(asked);
    expect(values.outcome ?? null).toBeNull();
  });
});
