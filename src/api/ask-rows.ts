/** `signoff.asks`: a review asked through a door, by its client, with its idempotency key. */
import type { Queryable } from '../db/queryable.js';
import type { Door } from '../engine/index.js';

export interface AskRow {
  id: string;
  client: string;
  door: Door;
  idempotencyKey: string;
  fingerprint: string;
  requestKey: string;
  channel: string;
  title: string;
  callbackUrl: string | null;
  createdAt: string;
}

const fromRow = (r: Record<string, unknown>): AskRow => ({
  id: r.id as string,
  client: r.client as string,
  door: r.door as Door,
  idempotencyKey: r.idempotency_key as string,
  fingerprint: r.fingerprint as string,
  requestKey: r.request_key as string,
  channel: r.channel as string,
  title: r.title as string,
  callbackUrl: (r.callback_url as string | null) ?? null,
  createdAt: new Date(r.created_at as string).toISOString(),
});

/** Inserts the ask, unless its client used the key before: then that one, `created` false. */
export async function insertAsk(
  db: Queryable,
  a: Omit<AskRow, 'createdAt'>,
): Promise<{ ask: AskRow; created: boolean }> {
  const r = await db.query(
    `INSERT INTO signoff.asks (id, client, door, idempotency_key, fingerprint, request_key, channel, title, callback_url)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (client, idempotency_key) DO NOTHING RETURNING *`,
    [
      a.id,
      a.client,
      a.door,
      a.idempotencyKey,
      a.fingerprint,
      a.requestKey,
      a.channel,
      a.title,
      a.callbackUrl,
    ],
  );
  if (r.rows[0]) {
    if (a.callbackUrl) await db.query('INSERT INTO signoff.ask_callbacks (ask_id) VALUES ($1)', [a.id]);
    return { ask: fromRow(r.rows[0]), created: true };
  }
  return { ask: (await getAskByKey(db, a.client, a.idempotencyKey)) as AskRow, created: false };
}

/** The ask a client made under this idempotency key, if any. */
export async function getAskByKey(db: Queryable, client: string, key: string): Promise<AskRow | undefined> {
  const r = await db.query('SELECT * FROM signoff.asks WHERE client = $1 AND idempotency_key = $2', [
    client,
    key,
  ]);
  return r.rows[0] && fromRow(r.rows[0]);
}

/** One ask of this client's (another client's is not found: ids are not secrets). */
export async function getAsk(db: Queryable, id: string, client: string): Promise<AskRow | undefined> {
  const r = await db.query('SELECT * FROM signoff.asks WHERE id = $1 AND client = $2', [id, client]);
  return r.rows[0] && fromRow(r.rows[0]);
}
