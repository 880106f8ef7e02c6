/**
 * What people see of a run while it goes, before any of it is saved: the words a model writes, as
 * it writes them (LangGraph's `messages` stream mode). A surface shows them through its LiveView
 * (Slack streams them into the thread; the terminal prints them). None of it is durable and none
 * of it counts: a step's words are shown for good only once the step is saved, as `agent_said`
 * events, each naming the stream that showed it as it was written (`streamed`), so that the
 * surface turns that message into the saved words instead of posting them again. A stream whose
 * words were never saved (the step failed, was stopped, or its node said something else) is
 * closed by the surface and never stands for a saved message.
 */
import { randomUUID } from 'node:crypto';
import type { AIMessageChunk } from '@langchain/core/messages';
import type { Task } from './types.js';

/** How a run ended, for the streams it leaves open. */
export type RunEnd = 'finished' | 'stopped' | 'failed';

/** A surface's live view of the runs of its tasks. */
export interface LiveView {
  /**
   * A run of `task` begins in this process. `id` is unique to this run; `held` says whether it
   * still holds the task's lease (a run that lost it shows nothing more); `unshown`, the agents'
   * messages saved and not shown yet, each by the stream that showed it as written (or null): a
   * stream started while one of them is still to be posted would show above it.
   */
  open(task: Task, run: LiveRunInfo): LiveRun;
}

/** Opens a surface's live view of a run of `task`, if its surface has one (with a new run id). */
export function openLive(
  lives: Partial<Record<Task['surface'], LiveView>> | undefined,
  task: Task,
  lease: { held(): boolean },
  reads: Pick<LiveRunInfo, 'unshown' | 'status'>,
): { view: LiveRun; id: string } | undefined {
  const id = randomUUID();
  const view = lives?.[task.surface]?.open(task, { id, held: () => lease.held(), ...reads });
  return view && { view, id };
}

export interface LiveRunInfo {
  id: string;
  held(): boolean;
  unshown(): Promise<(string | null)[]>;
  /**
   * The task's status as the database has it now: a cancel or a redirect changes it while the run
   * still goes (its abort comes after), so what a surface shows of the run checks it here.
   */
  status(): Promise<Task['status'] | undefined>;
}

export interface LiveRun {
  /**
   * Words a model call wrote, in order. `stream`: the call (unique within the run); `agent`: the
   * speaking agent's name, when the model carries it.
   */
  words(stream: string, agent: string | undefined, delta: string): void;
  /**
   * These streams showed words that are saved now: each `agent_said` event holding them names it.
   * (A stream whose words were saved before, under the same key, is `dropped`.)
   */
  kept(streams: string[]): void;
  /** These streams' step ended without saying their words: they stand for nothing. */
  dropped(streams: string[]): void;
  /** The run is over; streams neither kept nor dropped yet close as `how` says. */
  close(how: RunEnd): Promise<void>;
}

/** The metadata key a model's calls carry its agent's name in (set where models are made). */
export const AGENT_METADATA_KEY = 'signoff_agent';

interface Call {
  id: string;
  /** The graph task (node run) the call was made in: LangGraph's checkpoint namespace. */
  ns: string;
  node: string;
  agent?: string;
  paired: boolean;
}

/**
 * Follows a run's model calls through its `messages` stream and pairs each `say` with the stream
 * that showed its words: the earliest not yet paired of the same graph task (a node's calls and
 * its says come in the same order), so that parallel runs of one node never trade words.
 */
export function createWordStreams(live: LiveRun, runId: string) {
  const calls = new Map<string, Call>();
  let step: Call[] = [];
  return {
    /** A `messages` chunk: `[message chunk, metadata]`. */
    message(chunk: unknown): void {
      const [message, meta] = chunk as [AIMessageChunk, Record<string, unknown>];
      const text = typeof message?.content === 'string' ? message.content : '';
      if (!text) return;
      const ns = String(meta?.langgraph_checkpoint_ns ?? meta?.langgraph_node ?? '');
      const key = `${ns}|${message.id ?? ''}`;
      let call = calls.get(key);
      if (!call) {
        const agent = meta?.[AGENT_METADATA_KEY];
        call = {
          id: `${runId}.${calls.size}`,
          ns,
          node: String(meta?.langgraph_node ?? ''),
          agent: typeof agent === 'string' ? agent : undefined,
          paired: false,
        };
        calls.set(key, call);
        step.push(call);
      }
      live.words(call.id, call.agent, text);
    },
    /**
     * The stream that showed what this `say` says, if one did. A `say` (ours) names its graph task
     * and its agent, and a call whose model names another agent is not its: a stream never shows
     * one agent's words under another's name. Your own graph's messages name only their node
     * (and their agents as the graph does): by node.
     */
    pair(said: { ns?: string; node: string; agent: string }): string | undefined {
      const call = step.find(
        (c) =>
          !c.paired &&
          (said.ns
            ? c.ns === said.ns && (c.agent === undefined || c.agent === said.agent)
            : c.node === said.node),
      );
      if (!call) return undefined;
      call.paired = true;
      return call.id;
    },
    /** The step is over: its streams no `say` paired with never will be. */
    stepEnded(): void {
      const unpaired = step.filter((c) => !c.paired).map((c) => c.id);
      step = [];
      if (unpaired.length) live.dropped(unpaired);
    },
  };
}
