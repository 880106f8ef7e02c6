/**
 * A graph on a LangGraph server, as the engine runs graphs (RunnableGraph), over the LangGraph
 * SDK's client: each signoff graph thread is one thread on the server (thread-ids.ts), a run is a
 * streamed run on it, a decision resumes it with a `Command`, and its state is the thread's.
 *
 * Not LangGraph's own RemoteGraph: it throws the run's interrupts (the engine reads them from the
 * stream, as a local graph gives them), has no synchronous graph, and leaves a server that stopped
 * answering to hang. Here:
 * - a run the engine stops (cancel, redirect, a lost lease, the process stopping) is cancelled on
 *   the server too; the server also cancels it if signoff goes away (`onDisconnect: cancel`);
 * - a newer run on the thread replaces one a dead holder left (`multitaskStrategy: interrupt`):
 *   signoff's lease already makes it the only writer, and the server cannot be fenced;
 * - a resume names interrupts that must be pending (the engine's strict resume), checked first;
 * - a server down, refusing or silent fails the step with a RemoteGraphError, which the engine
 *   shows as a sentence with Retry: a request gets `timeoutSeconds`; a run that streams nothing
 *   for that long is asked about, and a server that does not answer that either ends it;
 * - a stream that ends without a word (cut by a proxy, its run cancelled on the server) counts
 *   only when the server says the run succeeded and every interrupt it stopped at was told.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Command,
  isCommand,
  type LangGraphRunnableConfig,
  type StateSnapshot,
  UnknownInterruptError,
} from '@langchain/langgraph';
import { Client, type StreamMode, type ThreadState } from '@langchain/langgraph-sdk';
import type { Logger } from '../../logger.js';
import type { RunnableGraph } from '../shared/types.js';
import { isNotFound, RemoteGraphError, remoteFailure } from './errors.js';
import { remoteThreadId } from './thread-ids.js';

export interface RemoteSettings {
  /** The server's address (a deployment's URL, or `langgraphjs dev`'s http://localhost:2024). */
  url: string;
  /** The graph (assistant id or graph id) to run there. */
  graph: string;
  apiKey?: string;
  /** How long a request, or a silent run, may go without an answer. */
  timeoutSeconds: number;
}

/** Statuses of a run that is still going on the server. */
const GOING = new Set(['pending', 'running']);

export function createRemoteGraph(remote: RemoteSettings, logger?: Logger): RunnableGraph {
  const timeoutMs = remote.timeoutSeconds * 1000;
  const client = new Client({
    apiUrl: remote.url,
    // Never a key from this process's environment (LANGSMITH_API_KEY…): only the workflow's own.
    apiKey: remote.apiKey ?? null,
    timeoutMs,
    // One quick retry of a refused connection; a server still down is the step's failure (Retry).
    callerOptions: { maxRetries: 1, maxConcurrency: 64 },
  });
  const threadOf = (config: LangGraphRunnableConfig) =>
    remoteThreadId(String(config.configurable?.thread_id));

  async function getState(config: LangGraphRunnableConfig): Promise<StateSnapshot> {
    let state: ThreadState;
    try {
      state = await client.threads.getState(threadOf(config), undefined, { signal: config.signal });
    } catch (error) {
      // A thread the server does not have (a new task, or an in-memory server restarted): no state.
      if (isNotFound(error)) return snapshot(undefined, config);
      throw remoteFailure(error, 'reading the thread on the LangGraph server');
    }
    return snapshot(state, config);
  }

  /** Resuming an interrupt that is not pending any more is refused before anything runs. */
  async function checkResume(command: Command, config: LangGraphRunnableConfig) {
    const resume = command.resume;
    if (!config.configurable?.__pregel_strict_resume || !resume || typeof resume !== 'object') return;
    const pending = new Set(
      (await getState(config)).tasks
        .filter((t) => t.result === undefined)
        .flatMap((t) => t.interrupts.map((i) => String(i.id))),
    );
    const unknown = Object.keys(resume).filter((id) => !pending.has(id));
    if (unknown.length)
      throw new UnknownInterruptError(`not pending on the server: ${unknown.join(', ')}`, {
        reason: 'not_pending',
        interruptIds: unknown,
        pendingIds: [...pending],
      });
  }

  async function stream(
    input: unknown,
    config: LangGraphRunnableConfig & { streamMode: string[]; durability?: 'exit' | 'async' | 'sync' },
  ): Promise<AsyncIterable<unknown>> {
    const thread = threadOf(config);
    const command = isCommand(input) ? (input as Command) : undefined;
    if (command) await checkResume(command, config);
    try {
      await client.threads.create({
        threadId: thread,
        ifExists: 'do_nothing',
        graphId: remote.graph,
        signal: config.signal,
      });
    } catch (error) {
      throw remoteFailure(error, 'creating the thread on the LangGraph server');
    }
    return run(thread, input, command, config);
  }

  async function* run(
    thread: string,
    input: unknown,
    command: Command | undefined,
    config: LangGraphRunnableConfig & { streamMode: string[]; durability?: 'exit' | 'async' | 'sync' },
  ): AsyncGenerator<unknown> {
    const caller = config.signal;
    const watchdog = new AbortController();
    let failure: RemoteGraphError | undefined;
    let runId: string | undefined;
    /** The interrupts the stream told of: a review the run stopped at that it did not is looked for. */
    const told = new Set<string>();
    let heard = Date.now();
    const stop = (why: RemoteGraphError) => {
      failure ??= why;
      watchdog.abort(why);
    };
    // A silent run is asked about once a period; a server that answers nothing ends it.
    const timer = setInterval(
      async () => {
        if (Date.now() - heard < timeoutMs || failure) return;
        if (!runId)
          return stop(
            new RemoteGraphError(
              'graph_server_timeout',
              'the LangGraph server did not start the run in time',
            ),
          );
        try {
          const status = (await client.runs.get(thread, runId, { signal: AbortSignal.timeout(timeoutMs) }))
            .status;
          if (GOING.has(status)) heard = Date.now();
          // Over (failed, or ended while its stream stays silent: a proxy holding it open), but
          // the stream said nothing of it: the step stops rather than wait for ever.
          else if (status === 'error')
            stop(new RemoteGraphError('graph_failed', `the run ended with status ${status}`));
          else
            stop(
              new RemoteGraphError('graph_server_error', `the run is ${status} but its stream went silent`),
            );
        } catch (error) {
          stop(remoteFailure(error, 'asking the LangGraph server about a silent run'));
        }
      },
      Math.min(timeoutMs, 5000),
    );
    timer.unref();
    const signal = caller ? AbortSignal.any([caller, watchdog.signal]) : watchdog.signal;
    const modes = config.streamMode.map((m) => (m === 'messages' ? 'messages-tuple' : m)) as StreamMode[];
    try {
      const events = client.runs.stream(thread, remote.graph, {
        ...(command
          ? { command: command.toJSON() as never }
          : { input: input as Record<string, unknown> | null }),
        config: { recursion_limit: config.recursionLimit, configurable: {} },
        metadata: { signoff_thread: String(config.configurable?.thread_id) },
        streamMode: modes,
        durability: config.durability,
        multitaskStrategy: 'interrupt',
        onDisconnect: 'cancel',
        strictResume: Boolean(command),
        signal,
        onRunCreated: (created) => {
          runId = created.run_id;
        },
      });
      for await (const event of events) {
        heard = Date.now();
        if (event.event === 'error') {
          // The graph failed on the server: its words (which may be anything) go to the log only.
          throw new RemoteGraphError(
            'graph_failed',
            `the run failed on the LangGraph server: ${JSON.stringify(event.data)}`,
          );
        }
        // Subgraphs' events (namespaced `mode|ns`) and the SDK's own (metadata, end) are not the graph's.
        if (!config.streamMode.includes(event.event)) continue;
        const asked = (event.data as { __interrupt__?: { id?: unknown }[] } | null)?.__interrupt__;
        if (Array.isArray(asked)) for (const i of asked) if (i?.id) told.add(String(i.id));
        yield [event.event, event.data];
      }
    } catch (error) {
      if (caller?.aborted) throw caller.reason;
      if (failure) throw failure;
      throw remoteFailure(error, 'running the graph on the LangGraph server');
    } finally {
      clearInterval(timer);
      if (runId && (caller?.aborted || failure)) cancel(thread, runId);
    }
    // The SDK ends a stream it was told to stop without a word: a stopped run did not finish.
    if (caller?.aborted) throw caller.reason;
    if (failure) throw failure;
    // It also ends one cut short without a word (a proxy's time limit, a run cancelled on the
    // server): only a run the server says succeeded ends the step, never a task done without
    // the review its graph did not get to.
    await ended(thread, runId, told, caller);
  }

  /**
   * Waits (up to the timeout) for the run whose stream ended to end; refuses one that did not
   * succeed, or whose stream did not tell of an interrupt it stopped at (cut after the run ended).
   * A refusal fails the step; its Retry reads the thread's state, interrupts included.
   */
  async function ended(
    thread: string,
    runId: string | undefined,
    told: Set<string>,
    caller: AbortSignal | undefined,
  ) {
    if (!runId)
      throw new RemoteGraphError('graph_server_error', 'the run ended its stream before it started');
    const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(caller ? [caller] : [])]);
    let status: string;
    try {
      for (;;) {
        status = (await client.runs.get(thread, runId, { signal })).status;
        if (!GOING.has(status)) break;
        await sleep(Math.min(500, timeoutMs), undefined, { signal });
      }
    } catch (error) {
      if (caller?.aborted) throw caller.reason;
      if (!signal.aborted) throw remoteFailure(error, 'asking the LangGraph server how a run ended');
      // Still going with its stream gone: it is stopped, and the step fails.
      cancel(thread, runId);
      status = 'still running';
    }
    if (status !== 'success')
      throw new RemoteGraphError(
        status === 'error' ? 'graph_failed' : 'graph_server_error',
        `the run's stream ended while the run was ${status}`,
      );
    let state: ThreadState;
    try {
      state = await client.threads.getState(thread, undefined, { signal });
    } catch (error) {
      if (caller?.aborted) throw caller.reason;
      throw remoteFailure(error, 'reading the thread on the LangGraph server');
    }
    const untold = (state.tasks ?? [])
      .filter((t) => t.result == null)
      .flatMap((t) => t.interrupts.map((i) => String(i.id)))
      .filter((id) => !told.has(id));
    if (untold.length)
      throw new RemoteGraphError(
        'graph_server_error',
        `the run's stream ended before it told of interrupts ${untold.join(', ')}`,
      );
  }

  /** The run stops on the server too; if the server cannot be told, it cancels the run itself once signoff's stream is gone. */
  function cancel(thread: string, runId: string) {
    client.runs
      .cancel(thread, runId, false, 'interrupt', { signal: AbortSignal.timeout(timeoutMs) })
      .catch((err: unknown) =>
        logger?.warn({ err, thread, run: runId }, 'could not cancel a run on the LangGraph server'),
      );
  }

  return {
    getState,
    stream,
    async invoke(input, config) {
      let values: unknown;
      for await (const chunk of (await stream(input, { ...config, streamMode: ['values'] })) as AsyncIterable<
        [string, unknown]
      >)
        values = chunk[1];
      return values;
    },
  };
}

/** The server's view of a thread as LangGraph's StateSnapshot (what the engine reads of a state). */
function snapshot(state: ThreadState | undefined, config: LangGraphRunnableConfig): StateSnapshot {
  return {
    values: (state?.values ?? {}) as Record<string, unknown>,
    next: state?.next ?? [],
    config: { configurable: { thread_id: config.configurable?.thread_id } },
    metadata: (state?.metadata ?? undefined) as StateSnapshot['metadata'],
    createdAt: state?.created_at ?? undefined,
    tasks: (state?.tasks ?? []).map((t) => ({
      id: t.id,
      name: t.name,
      interrupts: t.interrupts.map((i) => ({ id: i.id, value: i.value })),
      ...(t.error ? { error: t.error } : {}),
      // The server says `null` for a task that has not finished; LangGraph leaves it out.
      ...(t.result != null ? { result: t.result } : {}),
    })),
  };
}
