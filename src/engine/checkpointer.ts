/**
 * LangGraph's Postgres checkpointer, fenced by the run's lease. The runner names its lease in the
 * run's config (`configurable.signoff_lease`); every checkpoint of that run carries it in its
 * metadata, and a trigger refuses the checkpoint unless the lease is still held (migration 010).
 * A run that outlived its lease without noticing fails at its next checkpoint instead of forking
 * the thread's history beside the new holder's. Reads strip the lease again: it is not the graph's.
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

class FencedSaver extends PostgresSaver {
  override put(...[config, checkpoint, metadata, newVersions]: Parameters<PostgresSaver['put']>) {
    const holder = config.configurable?.[LEASE_KEY];
    // Metadata is stored as given (a JSON object): the lease is one more key in it.
    const fenced = holder ? ({ ...metadata, [LEASE_KEY]: holder } as CheckpointMetadata) : metadata;
    return super.put(config, checkpoint, fenced, newVersions);
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
  const saver = new FencedSaver(pool, undefined, { schema: CHECKPOINT_SCHEMA });
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
