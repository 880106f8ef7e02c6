/**
 * The port through which a door (the HTTP API, MCP) starts its task in a channel a surface owns:
 * the Slack surface posts the root message and starts the task exactly as for a person's command
 * (its claim, its sweep for a process that died halfway). The doors know only this; main.ts
 * hands them the surface's.
 */
import type { Queryable } from '../db/queryable.js';
import type { Door } from './types.js';

export interface ChannelStart {
  channel: string;
  /** The agent asking: `<door>:<client>`. */
  user: string;
  workflow: string;
  text: string;
  door: Door;
  input: Record<string, unknown>;
}

export interface ChannelStarts {
  /** What a claim needs of the surface (the workspace), fetched before the caller's transaction. */
  ready(): Promise<void>;
  /** Claims the start in the caller's transaction: once committed, it is finished by someone. */
  claim(db: Queryable, key: string, start: ChannelStart): Promise<void>;
  /** Posts the root and starts the task (a failure is left for the sweep, a refusal kept). */
  finish(key: string, start: ChannelStart): Promise<void>;
  /** How the start went: its task, its root message, or why it was given up. */
  state(key: string): Promise<{ taskId?: string; root?: string; refusal?: string }>;
}
