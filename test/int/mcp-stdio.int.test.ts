/**
 * `signoff mcp` as the process an MCP client starts, through the SDK's own client over stdio,
 * against the fake Slack and the test database: request_signoff blocks until a click in the card.
 * The file's service only takes Slack's requests (role web): the review's task is run, and its
 * card posted, by the `signoff mcp` process alone, as when no server runs tasks.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { startSignoff } from '../helpers/processes.js';
import { click, postSigned, SIGNING_SECRET } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { type Post, slackThreads, until } from '../helpers/slack-thread.js';

const ROOT = join(import.meta.dirname, '..', '..');
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const YAML = `api:
  clients:
    coding-agent:
      tokenSha256: ${sha('sk-coding-agent-0123456789')}
      channels: [C0WORK]
workflows:
  ask:
    checkpoints:
      review: { reviewers: [U0BOB, U0CAT, U0DAN], timeout: 2h }
`;

const file = slackPerFile('mcp_stdio', { yaml: YAML, env: { SIGNOFF_ROLE: 'web' } });
const { slack } = file;
const { posts, cardsIn, tsOf, buttons } = slackThreads(slack);

/** The environment of `signoff mcp` against this file's database and fake Slack. */
function mcpEnv(logLevel: string): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'signoff-mcp-'));
  writeFileSync(join(dir, 'signoff.yml'), YAML);
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DATABASE_URL: file.db.url,
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.url,
    SIGNOFF_CONFIG: join(dir, 'signoff.yml'),
    LOG_LEVEL: logLevel,
  };
}

function startMcp(): { client: Client; transport: StdioClientTransport; stderr: () => string } {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', join(ROOT, 'src', 'bin.ts'), 'mcp', '--client', 'coding-agent'],
    cwd: ROOT,
    stderr: 'pipe',
    env: mcpEnv('warn'),
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderr += d;
  });
  return { client: new Client({ name: 'test-agent', version: '1.0.0' }), transport, stderr: () => stderr };
}

describe('MCP over stdio (signoff mcp)', () => {
  it('request_signoff blocks until a click in Slack, the review run by the signoff mcp process itself', async () => {
    const { client, transport, stderr } = startMcp();
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name).sort()).toEqual(['get_signoff', 'request_signoff']);
      const title = 'Publish the 2.4 release notes';
      const heard: Progress[] = [];
      let answered = false;
      const result = client
        .callTool(
          { name: 'request_signoff', arguments: { channel: 'C0WORK', title, content: 'Notes for **2.4**.' } },
          undefined,
          { onprogress: (p) => heard.push(p) },
        )
        .finally(() => {
          answered = true;
        }) as Promise<CallToolResult>;
      const root = await until('the root', () => posts().find((p) => !p.thread_ts && p.text.includes(title)));
      expect(JSON.stringify(root.blocks)).toContain('*coding-agent* (through MCP)');
      const thread = tsOf(root);
      const card = await until('the card', () => cardsIn(thread)[0], 30_000);
      await until('progress', () =>
        heard.find((p) => p.message?.includes('waiting for U0BOB, U0CAT, U0DAN; 0 of 1 approval')),
      );
      expect(answered).toBe(false);
      const approve = (buttons(card) as { action_id: string; value: string; text?: { text: string } }[]).find(
        (b) => b.text?.text === 'Approve',
      );
      await postSigned(
        file.events,
        click('U0CAT', approve?.action_id ?? 'missing', approve?.value ?? '', tsOf(card as Post), thread),
      );
      expect((await result).structuredContent, stderr()).toMatchObject({
        status: 'approved',
        decision: { by: 'U0CAT', approvals: [{ by: 'U0CAT', at: expect.any(String) }] },
      });
    } finally {
      await client.close();
    }
    expect(stderr()).toBe('');
  });

  it('ends when its client closes stdin, saying so as its last line (stopped, runs handed back, database closed); exit 0', async () => {
    const mcp = startSignoff(['mcp', '--client', 'coding-agent'], mcpEnv('info'), 'src/bin.ts');
    try {
      await mcp.waitFor(/serving on stdio/, 60_000, 'stderr');
      mcp.child.stdin?.end();
      const { code, stderr } = await mcp.exited;
      expect(code).toBe(0);
      const last = JSON.parse(stderr.trim().split('\n').at(-1) ?? '{}') as { msg?: string; client?: string };
      expect(last).toMatchObject({
        msg: 'the MCP client closed stdin: stopped, runs handed back, database closed',
        client: 'coding-agent',
      });
    } finally {
      if (mcp.child.exitCode === null) mcp.child.kill('SIGKILL');
    }
  });

  it('stopped by SIGTERM, it says it stopped (never that its client closed stdin) as its last line; exit 143', async () => {
    const mcp = startSignoff(['mcp', '--client', 'coding-agent'], mcpEnv('info'), 'src/bin.ts');
    try {
      await mcp.waitFor(/serving on stdio/, 60_000, 'stderr');
      mcp.child.kill('SIGTERM');
      const { code, stderr } = await mcp.exited;
      expect(code).toBe(143);
      const said = stderr
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { msg: string }).msg);
      expect(said.at(-1)).toMatch(/^stopped after \d+(\.\d)? m?s: runs handed back, database closed$/);
      expect(said.filter((m) => m.includes('closed stdin'))).toEqual([]);
    } finally {
      if (mcp.child.exitCode === null) mcp.child.kill('SIGKILL');
    }
  });
});
