/**
 * Who is thinking right now: the agents whose model call is under way in this process, per task,
 * read from LangChain's callbacks (the graph's thread id rides along in each call's metadata).
 * The terminal shows "Writer is thinking…" from it while a task works; a run that another
 * process took shows nothing, which is all this process can know.
 */
import type { CallbackHandlerMethods } from '@langchain/core/callbacks/base';
import { taskOfThread } from '../engine/index.js';

export interface Thinking {
  /** LangChain callbacks for the model of `agent`: they report its calls here. */
  callbacks(agent: string): CallbackHandlerMethods[];
  /** The agent thinking for `taskId` now, if any (the latest to start). */
  of(taskId: string): string | undefined;
}

export function createThinking(): Thinking {
  const calls = new Map<string, { task: string; agent: string }>();
  const end = (runId: string) => {
    calls.delete(runId);
  };
  return {
    callbacks: (agent) => [
      {
        handleChatModelStart: (_llm, _messages, runId, _parent, _extra, _tags, metadata) => {
          const thread = metadata?.thread_id;
          if (typeof thread === 'string') calls.set(runId, { task: taskOfThread(thread), agent });
        },
        handleLLMEnd: (_output, runId) => end(runId),
        handleLLMError: (_error, runId) => end(runId),
      },
    ],
    of: (taskId) => [...calls.values()].filter((c) => c.task === taskId).at(-1)?.agent,
  };
}
