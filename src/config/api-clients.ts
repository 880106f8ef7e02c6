/**
 * The config file's `api:` section: the clients that may ask the team through the HTTP API and
 * the MCP server over HTTP. A token is kept only as its SHA-256 (hex), so the file can be read
 * without handing out a way in; each client is limited to its channels and to a rate.
 *
 *   api:
 *     clients:
 *       deploy-bot:
 *         tokenSha256: 5b0e…   # printf %s "$TOKEN" | sha256sum; a list while rotating
 *         channels: [C0123ABC]
 *         perMinute: 60
 *         callbackUrls: [https://ci.example.com/hooks/]
 */
import { z } from 'zod';

const PASSWORD_SHA256 = '5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8';

const tokenHashSchema = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'expected the SHA-256 of the token as 64 lowercase hex digits')
  // Earlier examples carried the hash of "password": a file copied from one lets anyone in.
  .refine((h) => h !== PASSWORD_SHA256, {
    message:
      'this is the SHA-256 of "password", which anyone can send: make a token of your own (openssl rand -hex 24) and put its SHA-256 here',
  });

/** The hashes a client's tokens may have: one, or a few while a token is rotated. */
export const tokenHashes = (c: Pick<ApiClient, 'tokenSha256'>): string[] => [c.tokenSha256].flat();

const clientSchema = z
  .object({
    /**
     * A list lets the old token and the new one in at once while a token is rotated: add the new
     * hash, give the client its new token, then remove the old hash.
     */
    tokenSha256: z.union([tokenHashSchema, z.array(tokenHashSchema).min(1).max(4)]),
    /** The Slack channels its reviews may be asked in. */
    channels: z.array(z.string().regex(/^[CG][A-Z0-9]{2,}$/, 'expected a channel id (C…)')).min(1),
    /**
     * Where it may be called back: an ask's callbackUrl, as it will be fetched, must start with one
     * of these and name its host (api/callback-urls.ts; no list, no callbacks). The server POSTs
     * there, so only addresses the operator chose.
     */
    callbackUrls: z.array(z.url({ protocol: /^https?$/ })).default([]),
    /** Calls a minute (reads and long-polls included), shared by every process. */
    perMinute: z.number().int().min(1).max(100_000).default(60),
  })
  .strict();
export type ApiClient = z.infer<typeof clientSchema> & { name: string };

export const apiSchema = z
  .object({
    clients: z
      .record(
        z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'expected a lowercase client name'),
        clientSchema,
      )
      .default({}),
  })
  .strict()
  .superRefine((api, ctx) => {
    // One token, one client: the audit names whoever called.
    const seen = new Map<string, string>();
    for (const [name, c] of Object.entries(api.clients ?? {}))
      for (const hash of tokenHashes(c)) {
        const other = seen.get(hash);
        if (other)
          ctx.addIssue({
            code: 'custom',
            path: ['clients', name, 'tokenSha256'],
            message:
              other === name
                ? 'the same token twice: list each token once'
                : `the same token as client ${other}: give each client its own`,
          });
        seen.set(hash, name);
      }
  });
export type ApiConfig = z.infer<typeof apiSchema>;
