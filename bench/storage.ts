/**
 * Bytes one task occupies (checkpoints + signoff's own rows) once its transcript holds `messages`
 * messages of ~500 characters: pair cycles of 49 agent turns and one feedback each.
 */
import type { Config } from '../src/config/config.js';
import { parseWorkflowConfig } from '../src/config/workflows.js';
import type { Database } from '../src/db/database.js';
import { checkpointBytes } from '../src/engine/prune.js';
import type { ModelFor } from '../src/llm/models.js';
import { ScriptedChatModel } from '../src/llm/scripted.js';
import type { Logger } from '../src/logger.js';
import { openSignoff } from '../src/main.js';

const PADDING = 'lorem ipsum dolor sit amet '.repeat(20);

/** The offline model with replies padded to 500 characters, like FACTS.md's measurement. */
const longReplies: ModelFor = ({ name }) => {
  const model = new ScriptedChatModel({ agent: name });
  const invoke = model.invoke.bind(model);
  model.invoke = (async (...args: Parameters<typeof invoke>) => {
    const reply = await invoke(...args);
    reply.content = `${String(reply.content)} ${PADDING}`.slice(0, 500);
    return reply;
  }) as typeof model.invoke;
  return model;
};

export async function bytesPerTask(
  config: Config,
  db: Database,
  logger: Logger,
  messages: number,
): Promise<number> {
  const app = await openSignoff(
    { ...config, workflows: parseWorkflowConfig('workflows:\n  pair:\n    maxIterations: 49\n', 'bench') },
    { logger, database: db, modelFor: longReplies, sinks: { cli: async () => undefined } },
  );
  await app.engine.work('cli', 1);
  const { task } = await app.engine.start({
    workflow: 'pair',
    text: `storage ${messages}`,
    requester: 'bench',
    surface: 'cli',
  });
  const pendingReview = async () => {
    for (;;) {
      const [review] = await app.engine.reviews(task.id, 'pending');
      const current = await app.engine.getTask(task.id);
      if (current?.status === 'failed') throw new Error(`storage task failed: ${current.statusReason}`);
      if (review && current?.status === 'waiting') return review.id;
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  for (let cycle = 1; cycle < messages / 50; cycle++) {
    const reviewId = await pendingReview();
    await app.engine.decide({
      reviewId,
      actor: { id: 'bench' },
      action: 'revise',
      feedback: PADDING.slice(0, 480),
    });
  }
  await pendingReview();
  const own = await db.pool.query<{ bytes: string }>(
    `SELECT (SELECT coalesce(sum(pg_column_size(e.*)), 0) FROM signoff.events e WHERE task_id = $1)
          + (SELECT coalesce(sum(pg_column_size(r.*)), 0) FROM signoff.reviews r WHERE task_id = $1) AS bytes`,
    [task.id],
  );
  const bytes = (await checkpointBytes(db.pool, task.id)) + Number(own.rows[0]?.bytes ?? 0);
  await app.close();
  return bytes;
}
