/**
 * What a workflow is to the engine: a compiled LangGraph graph plus how to start it and how to
 * read its ending. Nothing here knows about Slack or the terminal.
 */
import type { BaseCheckpointSaver, LangGraphRunnableConfig, StateSnapshot } from '@langchain/langgraph';
import type { WorkflowConfig } from '../../config/workflows.js';
import type { Documents } from '../../docs/documents.js';
import type { ModelFor } from '../../llm/models.js';
import type { Logger } from '../../logger.js';
import type { TaskInput } from './goal.js';

export type Durability = 'exit' | 'async' | 'sync';

export interface WorkflowDeps {
  modelFor: ModelFor;
  settings: WorkflowConfig;
  checkpointer: BaseCheckpointSaver;
  /** The team's documents (`signoff docs add`), for workflows that search them. */
  documents: Pick<Documents, 'search' | 'count'>;
  /** For failures a workflow handles itself (shown to people as a sentence, logged in full here). */
  logger?: Logger;
}

/** The part of a compiled graph the engine uses. */
export interface RunnableGraph {
  invoke(input: unknown, config: LangGraphRunnableConfig): Promise<unknown>;
  stream(
    input: unknown,
    config: LangGraphRunnableConfig & {
      streamMode: ('updates' | 'values' | 'custom' | 'tasks')[];
      durability?: Durability;
    },
  ): Promise<AsyncIterable<unknown>>;
  getState(config: LangGraphRunnableConfig): Promise<StateSnapshot>;
  /** The graph's shape: its nodes are a task's steps (engine/plan-steps.ts). */
  getGraph?(): { nodes: Record<string, { id: string; metadata?: Record<string, unknown> }> };
}

export interface WorkflowDefinition {
  name: string;
  description: string;
  build(deps: WorkflowDeps): RunnableGraph;
  /** The graph's input for a new task. */
  input(task: TaskInput): Record<string, unknown>;
  /**
   * When LangGraph saves state during a run, and so when what the agents said is shown. `exit`
   * (save when the run pauses or ends) suits short runs between reviews: a crash re-runs them
   * from the last review, and their messages appear when the run pauses. `sync` saves each step
   * before the next: its messages appear step by step, and a crash loses no finished step (long
   * autonomous runs). What is shown is always what was saved.
   */
  durability: Durability;
  /**
   * The checkpoints its reviews use (`checkpoints.<kind>` in the config, `reviews.<kind>` in a
   * scenario file), under these settings; absent when they cannot be known (your own graph).
   */
  checkpoints?(settings: WorkflowConfig): string[];
  /** How a finished run ended, from its final state. */
  outcome(values: Record<string, unknown>): { status: 'done' | 'rejected' | 'stopped'; reason?: string };
}

/** What a workflow is made of, as its graph showed when it was built: scenario files are checked against it. */
export interface WorkflowParts {
  /** The agents its graph asked a model for, by display name. */
  agents: string[];
  /** Its checkpoints; undefined for your own graph (its agents, too, may be more than these). */
  checkpoints?: string[];
}
