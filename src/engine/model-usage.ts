/**
 * Counting what models use: each answer's `usage` (tokens in and out) is added to the task whose
 * graph thread asked for it, with its cost at the config file's `prices`, and a watched run whose
 * task has reached its budget is stopped before its next model call (usage.ts pauses it).
 */
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { Callbacks } from '@langchain/core/callbacks/manager';
import type { LLMResult } from '@langchain/core/outputs';
import type pg from 'pg';
import type { WorkflowsConfig } from '../config/workflows.js';
import type { Logger } from '../logger.js';
import { type Task, taskOfThread } from './types.js';
import { BudgetReached } from './usage.js';

type Prices = WorkflowsConfig['prices'];

/** The price of `model` per million tokens: its own, else the longest name it starts with. */
function priceOf(prices: Prices, model: string | undefined) {
  if (!model) return undefined;
  if (prices[model]) return prices[model];
  const name = Object.keys(prices)
    .filter((p) => model.startsWith(p))
    .sort((a, b) => b.length - a.length)[0];
  return name ? prices[name] : undefined;
}

/** The tokens and model of one answer, whatever the provider put where. */
function answerUsage(output: LLMResult): { model?: string; input: number; output: number }[] {
  return output.generations.flat().flatMap((g) => {
    const message = (
      g as {
        message?: { usage_metadata?: Record<string, number>; response_metadata?: Record<string, unknown> };
      }
    ).message;
    const usage = message?.usage_metadata;
    if (!usage) return [];
    const meta = message?.response_metadata ?? {};
    const model = (meta.model_name ?? meta.model) as string | undefined;
    return [{ model, input: usage.input_tokens ?? 0, output: usage.output_tokens ?? 0 }];
  });
}

/** A run of a task watched for its budget (the runner's). */
interface Watched {
  task: Pick<Task, 'id' | 'budgetUsd'>;
  reached: (why: BudgetReached) => void;
}

export interface UsageCounter {
  /**
   * Counts each answer of `model` (every model signoff makes, main.ts) on the task whose graph
   * thread asked for it: a handler on the model, once however often it is given. On the models
   * rather than in a run's config: a handler in the config has LangChain build a callback manager
   * for every runnable of the graph (each node, each channel write) of every run.
   */
  count(model: { callbacks?: Callbacks }): void;
  /**
   * Watches a run of `task` for its budget until the returned function is called: a model about
   * to be called while the task's cost has reached its budget calls `reached` (the runner stops
   * the run).
   */
  watch(task: Watched['task'], reached: Watched['reached']): Watching;
}

/** A run watched: the metadata its graph config carries (its model calls name the run by it). */
export interface Watching {
  metadata: Record<string, string>;
  stop(): void;
}

/** The metadata key that names a watched run: each run its own, so that runs of one thread never mix. */
const RUN_KEY = 'signoff_run';

export function createUsageCounter(deps: {
  pool: pg.Pool;
  config: Pick<WorkflowsConfig, 'prices'>;
  logger: Logger;
}): UsageCounter {
  /** Runs watched, by their own key (RUN_KEY). */
  const watched = new Map<string, Watched>();
  let runs = 0;
  /** Models already said to have no price (once per process). */
  const unpriced = new Set<string>();
  /** The task, model and watched run of each call under way, by its LangChain run id. */
  const calls = new Map<string, { taskId: string; model?: string; run?: string }>();

  /**
   * Before a model is called: a task at its budget stops here, before paying for another answer
   * (the node runs again, from its start, once the budget is raised; the steps before it are kept).
   */
  const atBudget = async ({ task, reached }: Watched) => {
    // No budget when the run began, none during it: a budget is set when a task starts, and a
    // task with a round's budget starts with one. Its runs then read nothing per model call.
    if (task.budgetUsd === null) return;
    const r = await deps.pool
      .query<{ cost_usd: number; budget_usd: number | null }>(
        'SELECT cost_usd, budget_usd FROM signoff.tasks WHERE id = $1',
        [task.id],
      )
      .catch(() => undefined);
    const row = r?.rows[0];
    if (row?.budget_usd != null && row.cost_usd >= row.budget_usd)
      reached(new BudgetReached(row.cost_usd, row.budget_usd));
  };
  const started = async (
    _llm: unknown,
    _input: unknown,
    runId: string,
    _parent?: string,
    extra?: { invocation_params?: { model?: string; model_name?: string } },
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ) => {
    // LangGraph puts its run's thread in the metadata of every call made inside it; a model
    // called outside a task's graph counts for no task.
    const thread = metadata?.thread_id;
    if (typeof thread !== 'string') return;
    // The model each call asked for (an answer streamed in parts may not name it).
    const model = extra?.invocation_params?.model ?? extra?.invocation_params?.model_name;
    const run = typeof metadata?.[RUN_KEY] === 'string' ? metadata[RUN_KEY] : undefined;
    calls.set(runId, { taskId: taskOfThread(thread), model, run });
    const watching = run === undefined ? undefined : watched.get(run);
    if (watching) await atBudget(watching);
  };
  const add = async (taskId: string, u: ReturnType<typeof answerUsage>[number], model?: string) => {
    const price = priceOf(deps.config.prices, u.model ?? model) ?? priceOf(deps.config.prices, model);
    // A model without a price costs nothing here, so a budget never stops it: said once.
    const name = u.model ?? model ?? 'the model';
    if (!price && !unpriced.has(name)) {
      unpriced.add(name);
      deps.logger.warn(
        { model: name },
        'a model has no price in the config file (prices:): its tasks count tokens at no cost',
      );
    }
    const cost = price ? (u.input * price.input + u.output * price.output) / 1_000_000 : 0;
    try {
      await deps.pool.query(
        `UPDATE signoff.tasks SET tokens_in = tokens_in + $2, tokens_out = tokens_out + $3, cost_usd = cost_usd + $4
         WHERE id = $1`,
        [taskId, u.input, u.output, cost],
      );
    } catch (err) {
      // Counting is not the run: a lost connection here fails nothing (the next answer counts).
      deps.logger.warn({ err, task: taskId }, 'could not count a model answer’s usage');
    }
  };
  const handler = BaseCallbackHandler.fromMethods({
    handleChatModelStart: started,
    handleLLMStart: started,
    // Whatever an answer reported is counted, in a run that goes on to fail too (a call cut
    // short reports nothing).
    async handleLLMEnd(output: LLMResult, runId: string) {
      const call = calls.get(runId);
      calls.delete(runId);
      if (call) for (const u of answerUsage(output)) await add(call.taskId, u, call.model);
    },
    handleLLMError(_error: unknown, runId: string) {
      calls.delete(runId);
    },
  });
  // Counted before the node goes on, so that the budget stops the run at the answer that reached it.
  handler.awaitHandlers = true;
  return {
    count(model) {
      const own = model.callbacks;
      if (own && !Array.isArray(own)) {
        if (!own.handlers.includes(handler)) own.addHandler(handler);
      } else if (!own?.includes(handler)) model.callbacks = [...(own ?? []), handler];
    },
    watch(task, reached) {
      const run = `${task.id}:${++runs}`;
      watched.set(run, { task, reached });
      return {
        metadata: { [RUN_KEY]: run },
        stop() {
          watched.delete(run);
          // A call the run left without an end (a stream it broke off) is forgotten with it.
          for (const [id, call] of calls) if (call.run === run) calls.delete(id);
        },
      };
    },
  };
}
