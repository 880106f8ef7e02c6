/**
 * What the Slack benchmarks share: the fake Slack Web API in a process of its own (so its load is
 * not timed with what is measured), a database (embedded unless DATABASE_URL names one), and the
 * environment a signoff process needs to talk to both.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import type { Logger } from '../src/logger.js';
import { SIGNING_SECRET } from '../test/helpers/slack-requests.js';

export const TSX = join(import.meta.dirname, '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');

export async function startSlackBench(label: string, logger: Logger, fakeEnv: Record<string, string> = {}) {
  const fake = spawn(process.execPath, [TSX, join(import.meta.dirname, 'fake-slack-server.ts')], {
    env: { ...process.env, ...fakeEnv },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const slackUrl = await new Promise<string>((resolve) =>
    fake.stdout?.on('data', (d) => {
      const m = /ready (\S+)/.exec(String(d));
      if (m) resolve(m[1] as string);
    }),
  );
  const dir = process.env.DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), `signoff-${label}-`));
  const server = dir ? await startEmbeddedPostgres(dir, logger) : undefined;
  return {
    slackUrl,
    /** What the fake Slack recorded: 'calls' (every Web API call) or 'messages' (what it keeps). */
    read: async <T>(what: 'calls' | 'messages') =>
      (await (await fetch(slackUrl.replace(/api\/$/, what))).json()) as T,
    /** Messages Slack has that signoff did not post (the roots of seeded tasks). */
    keep: async (messages: { channel: string; ts: string; text?: string }[]) => {
      await fetch(slackUrl.replace(/api\/$/, 'messages'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages }),
      });
    },
    databaseUrl: process.env.DATABASE_URL ?? (server?.url as string),
    env: {
      SLACK_BOT_TOKEN: 'xoxb-bench',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slackUrl,
      PORT: '0',
    },
    stop: async () => {
      fake.kill('SIGTERM');
      await server?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
