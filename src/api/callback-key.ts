/**
 * The Ed25519 key callbacks are signed with: one per database, made by the first process that
 * needs it (two at once: the first insert wins, both read it back). Whoever reads the config file
 * learns nothing that signs; a client checks a callback with the public key (GET
 * /api/v1/callback-key, once) and `signoff-signature: t=<unix seconds>,ed25519=<base64>` over
 * "<t>.<body>".
 */
import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import type pg from 'pg';

export interface CallbackKey {
  publicPem(): Promise<string>;
  /** The header's value for `body`, signed now. */
  signature(body: string, at: Date): Promise<string>;
}

export function createCallbackKey(pool: pg.Pool): CallbackKey {
  let loaded: Promise<{ privatePem: string; publicPem: string }> | undefined;
  const load = async () => {
    const read = () =>
      pool.query<{ private_pem: string; public_pem: string }>(
        "SELECT private_pem, public_pem FROM signoff.signing_keys WHERE name = 'callbacks'",
      );
    let r = await read();
    if (!r.rows[0]) {
      const pair = generateKeyPairSync('ed25519');
      await pool.query(
        "INSERT INTO signoff.signing_keys (name, private_pem, public_pem) VALUES ('callbacks', $1, $2) ON CONFLICT (name) DO NOTHING",
        [
          pair.privateKey.export({ type: 'pkcs8', format: 'pem' }),
          pair.publicKey.export({ type: 'spki', format: 'pem' }),
        ],
      );
      r = await read();
    }
    const row = r.rows[0] as { private_pem: string; public_pem: string };
    return { privatePem: row.private_pem, publicPem: row.public_pem };
  };
  const key = () => {
    loaded ??= load().catch((error) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
  return {
    publicPem: async () => (await key()).publicPem,
    async signature(body, at) {
      const t = Math.floor(at.getTime() / 1000);
      const signed = sign(null, Buffer.from(`${t}.${body}`), createPrivateKey((await key()).privatePem));
      return `t=${t},ed25519=${signed.toString('base64')}`;
    },
  };
}
