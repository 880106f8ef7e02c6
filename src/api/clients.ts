/**
 * Who is calling: a bearer token, compared by its SHA-256 with each client's in the config file in
 * constant time (a token is never kept, nor its comparison timed); and each client's rate, kept in
 * Postgres so that every process shares it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { type ApiClient, type ApiConfig, tokenHashes } from '../config/api-clients.js';

export interface ClientAuth {
  /** The client whose token this `Authorization` header carries, if any. */
  authenticate(header: string | undefined): ApiClient | undefined;
  /** Takes one of the client's calls: 0 when it may go, else the milliseconds to wait. */
  take(client: ApiClient): Promise<number>;
}

export function createClientAuth(pool: pg.Pool, api: ApiConfig): ClientAuth {
  // A client with several tokens (one being rotated) is one entry per token.
  const clients = Object.entries(api.clients).flatMap(([name, c]) =>
    tokenHashes(c).map((hash) => ({ ...c, name, hash: Buffer.from(hash, 'hex') })),
  );
  return {
    authenticate(header) {
      const token = header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
      if (!token) return undefined;
      const given = createHash('sha256').update(token).digest();
      // Every client is compared, so the time taken does not say which came close.
      let found: ApiClient | undefined;
      for (const { hash, ...client } of clients) if (timingSafeEqual(given, hash)) found = client;
      return found;
    },
    async take(client) {
      // GCRA (signoff.take_rate): a tenth of a minute's calls at once, then one a period.
      const r = await pool.query<{ wait: number }>('SELECT signoff.take_rate($1, $2, $3) AS wait', [
        `api:${client.name}`,
        60_000 / client.perMinute,
        Math.max(1, Math.ceil(client.perMinute / 10)),
      ]);
      return Math.ceil(Number(r.rows[0]?.wait ?? 0));
    },
  };
}
