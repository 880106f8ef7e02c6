/**
 * LangGraph's own conformance suite for checkpointers (`@langchain/langgraph-checkpoint-validation`),
 * run against signoff's fenced checkpointer as a running task uses it: built by
 * `setupCheckpointer` (LangGraph's tables and the fence trigger), and every checkpoint written
 * under a run lease that is held, named in the config the way the runner names it. So the suite's
 * checks (round trips, pending writes, listing, filters, deleting a thread) hold for the writes
 * that pass through the fence, not just for LangGraph's plain Postgres saver.
 */
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  Annotation,
  type BaseCheckpointSaver,
  END,
  emptyCheckpoint,
  INTERRUPT,
  START,
  StateGraph,
} from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Database, openDatabase } from '../../src/db/database.js';
import { LEASE_KEY, setupCheckpointer } from '../../src/engine/checkpointer.js';
import { CHECKPOINT_SCHEMA } from '../../src/engine/prune.js';
import type { Lease } from '../../src/engine/runtime/index.js';
import { createLogger } from '../../src/logger.js';
import { claimKey } from '../helpers/claim.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

// The suite calls describe/it/expect as globals (Jest style); this project keeps vitest's globals
// off, so they are handed over before the suite is loaded.
Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it });
const { validate } = await import('@langchain/langgraph-checkpoint-validation');

let testDb: TestDatabase;
let db: Database;
/** The run leases held by the checkpointer in use, by lease key. */
const held = new Map<string, Lease & { stop(): void; release(): Promise<void> }>();

/** Stops the leases held (their heartbeats) and forgets them. */
function stopLeases() {
  for (const lease of held.values()) lease.stop();
  held.clear();
}

/** The lease a task's run holds while it writes the graph thread `threadId` (see the fence). */
const runKey = (threadId: string) => `run:${threadId.replace(/#\d+$/, '')}`;

async function leaseFor(threadId: string): Promise<Lease & { release(): Promise<void> }> {
  const key = runKey(threadId);
  const known = held.get(key);
  if (known) return known;
  const lease = await claimKey(db.pool, key, { ttlSeconds: 30, heartbeats: db.heartbeats });
  if (!lease) throw new Error(`the run lease ${key} is taken`);
  held.set(key, lease);
  return lease;
}

/**
 * The checkpointer as a task's run sees it: every write names the run's lease in its config, as
 * the runner's config does, and the lease is held (taken the first time a thread is written).
 * A config without a thread is passed on as it is: the checkpointer itself must refuse it.
 */
function asRunning(saver: BaseCheckpointSaver): BaseCheckpointSaver {
  const underLease = async (config: RunnableConfig): Promise<RunnableConfig> => {
    const threadId = config.configurable?.thread_id;
    if (typeof threadId !== 'string') return config;
    const lease = await leaseFor(threadId);
    return { ...config, configurable: { ...config.configurable, [LEASE_KEY]: lease.holder } };
  };
  return new Proxy(saver, {
    get(target, property, receiver) {
      if (property === 'put')
        return async (config: RunnableConfig, ...rest: [never, never, never]) =>
          target.put(await underLease(config), ...rest);
      if (property === 'putWrites')
        return async (config: RunnableConfig, ...rest: [never, never]) =>
          target.putWrites(await underLease(config), ...rest);
      return Reflect.get(target, property, receiver);
    },
  });
}

validate({
  checkpointerName: 'signoff fenced PostgresSaver',
  beforeAllTimeout: 60_000,
  async beforeAll() {
    testDb = await createTestDatabase('checkpointer_conformance');
    db = await openDatabase({ url: testDb.url, dataDir: '', logger: createLogger('silent'), poolSize: 4 });
    // LangGraph's tables and the fence, before the first checkpointer empties them.
    await setupCheckpointer(db.pool);
  },
  async afterAll() {
    await db?.close();
    await testDb?.drop();
  },
  async createCheckpointer() {
    // One checkpointer at a time; each starts from empty tables (the suite's `list` checks see
    // everything stored).
    await db.pool.query(
      `TRUNCATE ${CHECKPOINT_SCHEMA}.checkpoints, ${CHECKPOINT_SCHEMA}.checkpoint_blobs, ${CHECKPOINT_SCHEMA}.checkpoint_writes`,
    );
    return asRunning(await setupCheckpointer(db.pool));
  },
  async destroyCheckpointer() {
    stopLeases();
    await db.pool.query('DELETE FROM signoff.jobs');
  },
});

describe('the checkpointer the suite ran against', () => {
  it('refuses a checkpoint once its run lease is taken by another holder: the suite ran behind the fence', async () => {
    const saver = asRunning(await setupCheckpointer(db.pool));
    const config = { configurable: { thread_id: 'fenced-thread', checkpoint_ns: '' } };
    const metadata = { source: 'input' as const, step: -1, parents: {} };
    await saver.put(config, emptyCheckpoint(), metadata, {});
    await db.pool.query("UPDATE signoff.jobs SET holder = 'another process' WHERE key = $1", [
      runKey('fenced-thread'),
    ]);
    await expect(saver.put(config, emptyCheckpoint(), metadata, {})).rejects.toThrow(/checkpoint refused/);
    stopLeases();
  });

  it("sends a checkpoint with its channels, and a call's pending writes, as one statement each; a refused checkpoint leaves none of its blobs", async () => {
    const saver = asRunning(await setupCheckpointer(db.pool));
    const config = { configurable: { thread_id: 'one-statement', checkpoint_ns: '' } };
    const metadata = { source: 'loop' as const, step: 0, parents: {} };
    const versions = { a: 1, b: 1, c: 1 };
    const checkpoint = {
      ...emptyCheckpoint(),
      channel_values: { a: 'one', b: [2], c: { three: 3 } },
      channel_versions: versions,
    };
    await leaseFor('one-statement');
    // Every statement any client sends; the checkpoint tables' (and any transaction) are counted.
    // The library's way is BEGIN, an INSERT per row, COMMIT.
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    const statements = () =>
      sent.mock.calls.filter(([q]) => /checkpoint|BEGIN|COMMIT/i.test(typeof q === 'string' ? q : String(q)))
        .length;
    try {
      const saved = await saver.put(config, checkpoint, metadata, versions);
      expect(statements()).toBe(1);
      await saver.putWrites(
        saved,
        [
          ['said', 'words'],
          [INTERRUPT, 'asks'],
        ],
        'mixed',
      );
      expect(statements()).toBe(2);
      await saver.putWrites(saved, [[INTERRUPT, 'asks']], 'asking');
      expect(statements()).toBe(3);
      expect((await saver.getTuple(saved))?.checkpoint.channel_values).toEqual(checkpoint.channel_values);
    } finally {
      sent.mockRestore();
    }
    await db.pool.query("UPDATE signoff.jobs SET holder = 'another process' WHERE key = $1", [
      runKey('one-statement'),
    ]);
    const next = { ...emptyCheckpoint(), channel_values: { a: 'two' }, channel_versions: { a: 2 } };
    await expect(saver.put(config, next, metadata, { a: 2 })).rejects.toThrow(/checkpoint refused/);
    const blobs = await db.pool.query(
      `SELECT version FROM ${CHECKPOINT_SCHEMA}.checkpoint_blobs WHERE thread_id = 'one-statement' AND channel = 'a'`,
    );
    expect(blobs.rows.map((r) => r.version)).toEqual(['1']);
    stopLeases();
  });

  it("stores and reads back what LangGraph's own saver does for the same calls: repeated, mixed, empty and too many writes, a channel without a value, a checkpoint written twice", async () => {
    const plain = new PostgresSaver(db.pool, undefined, { schema: 'plain_saver' });
    await plain.setup();
    const fenced = asRunning(await setupCheckpointer(db.pool));
    const thread = { configurable: { thread_id: 'as-the-library', checkpoint_ns: '' } };
    const first = {
      ...emptyCheckpoint(),
      channel_values: { a: 'one', b: [2] },
      // `c` has a version and no value: the library stores it as empty.
      channel_versions: { a: 1, b: 1, c: 1 },
    };
    const second = {
      ...emptyCheckpoint(),
      channel_values: { a: 'two', b: [2] },
      channel_versions: { a: 2, b: 1, c: 1 },
    };
    const many = Array.from({ length: 8_200 }, (_, i): [string, unknown] => [`channel-${i % 3}`, i]);
    const play = async (saver: BaseCheckpointSaver) => {
      const one = await saver.put(
        thread,
        first,
        { source: 'input', step: -1, parents: {} },
        { a: 1, b: 1, c: 1 },
      );
      await saver.putWrites(
        one,
        [
          [INTERRUPT, 'first'],
          [INTERRUPT, 'second'],
        ],
        'asking',
      );
      await saver.putWrites(
        one,
        [
          ['said', 'words'],
          [INTERRUPT, 'first'],
          [INTERRUPT, 'second'],
        ],
        'mixed',
      );
      await saver.putWrites(one, [['said', 'again']], 'mixed');
      await saver.putWrites(one, [], 'silent');
      await saver.putWrites(one, many, 'busy');
      // The same checkpoint again, with other metadata: it replaces the first.
      await saver.put(thread, first, { source: 'loop', step: 0, parents: {} }, {});
      const two = await saver.put(one, second, { source: 'loop', step: 1, parents: {} }, { a: 2 });
      const tuples = [];
      for await (const t of saver.list(thread)) tuples.push(t);
      return { one: await saver.getTuple(one), two: await saver.getTuple(two), tuples };
    };
    const theirs = await play(plain);
    const ours = await play(fenced);
    expect(ours.one?.pendingWrites).toHaveLength(8_203);
    expect(ours).toEqual(theirs);
    stopLeases();
  }, 60_000);

  it("a graph's state read back after a run does not show the run's lease, and an update outside any run that keeps the saved metadata is not refused for it", async () => {
    const graph = new StateGraph(Annotation.Root({ said: Annotation<string> }))
      .addNode('agent', () => ({ said: 'draft' }))
      .addEdge(START, 'agent')
      .compile({ checkpointer: await setupCheckpointer(db.pool) });
    const thread = { configurable: { thread_id: 'updated-thread' } };
    const lease = await leaseFor('updated-thread');
    await graph.invoke({ said: '' }, { configurable: { ...thread.configurable, [LEASE_KEY]: lease.holder } });
    await lease.release();
    held.clear();
    expect((await graph.getState(thread)).metadata).not.toHaveProperty(LEASE_KEY);
    // Ending a thread by hand (an update as END) copies the saved metadata into its checkpoint:
    // with the lease in it, the fence would refuse it for a lease nobody holds any more.
    await graph.updateState(thread, null, END);
    const ended = await graph.getState(thread);
    expect(ended.metadata?.source).toBe('update');
    expect(ended.values).toEqual({ said: 'draft' });
  });
});
