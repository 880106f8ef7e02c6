/**
 * The usage counter rides on the models themselves (not on each run's config): a model is made
 * to count once, however often it is handed over, so no answer is counted twice.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseWorkflowConfig } from '../../src/config/workflows.js';
import { createUsageCounter } from '../../src/engine/model-usage.js';
import { startBudget } from '../../src/engine/usage.js';
import { DeadlinedChatOpenAI } from '../../src/llm/deadlined-chat.js';
import { ScriptedChatModel } from '../../src/llm/scripted.js';
import { createLogger } from '../../src/logger.js';

// Never connects: making a model count queries nothing.
const pool = new pg.Pool({ connectionString: 'postgres://unused@127.0.0.1:1/none' });
const usage = createUsageCounter({ pool, config: { prices: {} }, logger: createLogger('silent') });

describe('counting what models use', () => {
  it('a model given twice carries the counting handler once', () => {
    const model = new ScriptedChatModel({ agent: 'Author' });
    usage.count(model);
    usage.count(model);
    expect(Array.isArray(model.callbacks) && model.callbacks.length).toBe(1);
  });

  it("keeps a model's own handlers beside the counter", () => {
    const own = { handleLLMEnd: () => undefined };
    const model = new ScriptedChatModel({ agent: 'Author' });
    model.callbacks = [own];
    usage.count(model);
    expect(Array.isArray(model.callbacks) && model.callbacks[0]).toBe(own);
    expect(Array.isArray(model.callbacks) && model.callbacks.length).toBe(2);
  });

  it('a model bound for tools or structured output keeps the handler and metadata it was given after it was made', () => {
    const models = [
      new DeadlinedChatOpenAI({ apiKey: 'sk-unused', model: 'gpt-4o-mini', deadlineMs: 1000 }),
      new ScriptedChatModel({ agent: 'Planner' }),
    ];
    for (const model of models) {
      usage.count(model);
      model.metadata = { agent: 'Planner' };
      const tool = { name: 'route', description: 'route', schema: { type: 'object', properties: {} } };
      const bound = model.bindTools?.([tool]) as unknown as { callbacks?: unknown; metadata?: unknown };
      expect(bound.callbacks).toEqual(model.callbacks);
      expect(bound.metadata).toMatchObject({ agent: 'Planner' });
    }
  });
});

describe('what a task may spend before its first review', () => {
  const config = (yaml: string) => parseWorkflowConfig(yaml, 'signoff.yml');

  it("is the workflow's budget, else the least of its checkpoints', the default checkpoint's included", () => {
    const prices = 'prices:\n  gpt-4o-mini: { input: 1, output: 1 }\n';
    expect(startBudget(config(`${prices}workflows:\n  pair:\n    budget: 5\n`), 'pair')).toBe(5);
    expect(
      startBudget(
        config(`${prices}workflows:\n  specialist:\n    checkpoints:\n      review: { budget: 3 }\n`),
        'specialist',
      ),
    ).toBe(3);
    // Every checkpoint the workflow leaves to the default has its round's budget.
    expect(startBudget(config(`${prices}defaults:\n  checkpoint: { budget: 4 }\n`), 'pair')).toBe(4);
    expect(startBudget(config(''), 'pair')).toBeNull();
  });
});
