/**
 * LangGraph's Postgres checkpointer, fenced by the run's lease. The runner names its lease in the
 * run's config (`configurable.signoff_lease`); every checkpoint of that run carries it in its
 * metadata, and a trigger refuses the checkpoint unless the lease is still held (migration 010).
 * A run that outlived its lease without noticing fails at its next checkpoint instead of forking
 * the thread's history beside the new holder's. Reads strip the lease again: it is not the graph's.
 *
 * Writes go as one statement each: the library (1.0.x, which package.json pins) sends a checkpoint
 * as a transaction of one INSERT per changed channel and then the checkpoint, and a step's pending
 * writes one INSERT each: 54 of a pair review round's 99 statements, and on these machines each
 * round trip's write to the socket is the largest single cost of a round. The rows, their
 * serialization and their conflict rules are the library's (a test compares what both store); one
 * statement is as atomic as its transaction was, and the fence refusing the checkpoint takes its
 * blobs with it.
 */
import type { CheckpointMetadata } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type pg from 'pg';
import { inTransaction } from '../db/queryable.js';
import { CHECKPOINT_SCHEMA } from './prune.js';

/** The configurable key under which a run names its lease. */
export const LEASE_KEY = 'signoff_lease';

/** The fence refused a checkpoint: the run's lease is not held any more. */
export const isCheckpointRefused = (error: unknown) =>
  (error as { code?: string })?.code === '55P03' &&
  String((error as Error).message).includes('checkpoint refused');

/** Postgres's limit on a statement's parameters: a larger write goes the library's way. */
const MAX_PARAMETERS = 65_535;

/** `($1, $2), ($3, $4)`: placeholders for `rows` of `width` values, numbered on from `after`. */
const valuesOf = (rows: unknown[][], width: number, after = 0) =>
  rows
    .map((_, r) => `(${Array.from({ length: width }, (_, c) => `$${after + r * width + c + 1}`).join(', ')})`)
    .join(', ');

const REPLACE_WRITE = 'UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob';

class FencedSaver extends PostgresSaver {
  private readonly tables: { blobs: string; checkpoints: string; writes: string };

  constructor(
    private readonly db: pg.Pool,
    schema: string,
  ) {
    super(db, undefined, { schema });
    this.tables = {
      blobs: `"${schema}".checkpoint_blobs`,
      checkpoints: `"${schema}".checkpoints`,
      writes: `"${schema}".checkpoint_writes`,
    };
  }

  override async put(...[config, checkpoint, metadata, newVersions]: Parameters<PostgresSaver['put']>) {
    const holder = config.configurable?.[LEASE_KEY];
    // Metadata is stored as given (a JSON object): the lease is one more key in it.
    const fenced = holder ? ({ ...metadata, [LEASE_KEY]: holder } as CheckpointMetadata) : metadata;
    const { thread_id, checkpoint_ns = '', checkpoint_id } = config.configurable ?? {};
    // No thread: the library refuses it in its own words.
    if (thread_id === undefined || (Object.keys(newVersions).length + 1) * 6 > MAX_PARAMETERS)
      return super.put(config, checkpoint, fenced, newVersions);
    const blobs = await this._dumpBlobs(thread_id, checkpoint_ns, checkpoint.channel_values, newVersions);
    const row = [
      thread_id,
      checkpoint_ns,
      checkpoint.id,
      checkpoint_id,
      this._dumpCheckpoint(checkpoint),
      await this._dumpMetadata(fenced),
    ];
    const saved = `INSERT INTO ${this.tables.checkpoints} (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
      VALUES ${valuesOf([row], 6)}
      ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata`;
    await this.db.query(
      blobs.length
        ? `WITH blobs AS (
             INSERT INTO ${this.tables.blobs} (thread_id, checkpoint_ns, channel, version, type, blob)
             VALUES ${valuesOf(blobs, 6, row.length)}
             ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING)
           ${saved}`
        : saved,
      [...row, ...blobs.flat()],
    );
    return { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(...[config, writes, taskId]: Parameters<PostgresSaver['putWrites']>) {
    if (!writes.length) return;
    if (writes.length * 8 > MAX_PARAMETERS) return super.putWrites(config, writes, taskId);
    const { thread_id, checkpoint_ns, checkpoint_id } = config.configurable ?? {};
    const dumped = await this._dumpWrites(thread_id, checkpoint_ns, checkpoint_id, taskId, writes);
    // Writes all to special channels (an error, an interrupt: those of WRITES_IDX_MAP, the only
    // negative indexes `_dumpWrites` gives) replace what was there, as the library's do; others
    // are kept once written. An upsert may not touch one row twice in a statement: of writes that
    // share an index the last stands, as it did one statement at a time; and the first where
    // they are kept.
    const replace = dumped.every((w) => w[4] < 0);
    const byIndex = new Map<number, (typeof dumped)[number]>();
    for (const w of dumped) if (replace || !byIndex.has(w[4])) byIndex.set(w[4], w);
    const rows = [...byIndex.values()];
    await this.db.query(
      `INSERT INTO ${this.tables.writes} (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
       VALUES ${valuesOf(rows, 8)}
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO ${replace ? REPLACE_WRITE : 'NOTHING'}`,
      rows.flat(),
    );
  }

  // The lease is the fence's business: a checkpoint's metadata reads back as LangGraph wrote it
  // (getTuple, list, the graph's state history), as its checkpointer contract requires
  // (test/int/checkpointer-conformance.int.test.ts).
  protected override _loadMetadata(metadata: Record<string, unknown>) {
    if (!metadata || !(LEASE_KEY in metadata)) return super._loadMetadata(metadata);
    const { [LEASE_KEY]: _lease, ...written } = metadata;
    return super._loadMetadata(written);
  }
}

/** Creates LangGraph's tables and the fence once, even when several processes start together. */
export async function setupCheckpointer(pool: pg.Pool): Promise<PostgresSaver> {
  const saver = new FencedSaver(pool, CHECKPOINT_SCHEMA);
  await inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('signoff:checkpointer-setup', 0))");
    await saver.setup();
    await client.query(
      `CREATE OR REPLACE TRIGGER signoff_fence BEFORE INSERT OR UPDATE ON ${CHECKPOINT_SCHEMA}.checkpoints
       FOR EACH ROW EXECUTE FUNCTION signoff.fence_checkpoint()`,
    );
  });
  return saver;
}
