/**
 * Each built-in workflow as a bare LangGraph graph, on the in-memory and on the Postgres
 * checkpointer alike (STYLE.md): start → interrupt → resume with a decision → the next interrupt
 * or the end. A revise comes back as the next round; approvals run it to its outcome.
 */

import { join } from 'node:path';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { Command, INTERRUPT, isInterrupted, MemorySaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWorkflowConfig, workflowSettings } from '../../src/config/workflows.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { createDocuments } from '../../src/docs/documents.js';
import { ScriptedChatModel } from '../../src/llm/scripted.js';
import { BUILT_IN_WORKFLOWS } from '../../src/workflows/index.js';
import type { Decision, ReviewRequest } from '../../src/workflows/protocol/requests.js';
import type { WorkflowDefinition } from '../../src/workflows/shared/types.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
let pool: pg.Pool;
const savers: Record<string, () => BaseCheckpointSaver> = {};
beforeAll(async () => {
  db = await createTestDatabase('graphs');
  pool = new pg.Pool({ connectionString: db.url });
  pool.on('error', () => undefined); // idle clients ended by the drop at the end
  // The project's own tables (the documents the proposal searches).
  await migrate(pool, readMigrations(join(import.meta.dirname, '..', '..', 'migrations')));
  const postgres = new PostgresSaver(pool, undefined, { schema: 'graphs' });
  await postgres.setup();
  savers.memory = () => new MemorySaver();
  savers.postgres = () => postgres;
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const decision = (action: Decision['action'], feedback?: string): Decision => ({
  action,
  feedback,
  values: {},
  by: 'U0BOB',
  at: new Date().toISOString(),
});
let threads = 0;

/** Builds the workflow on `saver`; `answer` says what each question gets; returns what was asked and the end. */
async function drive(
  workflow: WorkflowDefinition,
  saver: BaseCheckpointSaver,
  answer: (request: ReviewRequest, n: number) => Decision,
) {
  const graph = workflow.build({
    modelFor: ({ name }) => new ScriptedChatModel({ agent: name }),
    settings: workflowSettings(parseWorkflowConfig('', 'test.yml'), workflow.name),
    checkpointer: saver,
    documents: createDocuments(pool),
  });
  const config = { configurable: { thread_id: `graphs-${++threads}` } };
  const asked: ReviewRequest[] = [];
  let result = await graph.invoke(
    workflow.input({ text: 'plan the team offsite', requester: 'U0ANN' }),
    config,
  );
  while (isInterrupted(result) && asked.length < 12) {
    const pending = result[INTERRUPT][0] as { id: string; value: ReviewRequest };
    asked.push(pending.value);
    result = await graph.invoke(
      new Command({ resume: { [pending.id]: answer(pending.value, asked.length) } }),
      config,
    );
  }
  const values = (await graph.getState(config)).values as Record<string, unknown>;
  return { asked, ended: !isInterrupted(result), outcome: workflow.outcome(values) };
}

for (const kind of ['memory', 'postgres'] as const) {
  describe(`workflows as graphs (${kind} checkpointer)`, () => {
    for (const workflow of BUILT_IN_WORKFLOWS) {
      it(`${workflow.name}: approving every question runs it to its end`, async () => {
        const { asked, ended, outcome } = await drive(workflow, savers[kind]?.() as BaseCheckpointSaver, () =>
          decision('approve'),
        );
        expect(asked.length).toBeGreaterThan(0);
        expect(ended).toBe(true);
        expect(outcome.status).toBe('done');
      });
    }

    it('pair: a revise comes back as the next round with the feedback; a reject ends it rejected', async () => {
      const pair = BUILT_IN_WORKFLOWS.find((w) => w.name === 'pair') as WorkflowDefinition;
      const { asked, outcome } = await drive(pair, savers[kind]?.() as BaseCheckpointSaver, (_, n) =>
        n === 1 ? decision('revise', 'shorter, please') : decision('reject'),
      );
      expect(asked.map((r) => r.round)).toEqual([1, 2]);
      expect(asked[1]?.body).toContain('shorter, please');
      expect(outcome.status).toBe('rejected');
    });
  });
}
