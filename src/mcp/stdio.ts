/**
 * The MCP server over stdio (`signoff mcp`): one client, the process that started this one, speaks
 * JSON-RPC on its stdin and stdout. Its end of input is its goodbye: the server closes (a call
 * under way stops waiting; its review stays open).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/** `input`: the client closed stdin; `stopped`: the process closed it (a signal's stop). */
export type McpClosed = 'input' | 'stopped';

export async function serveStdio(
  server: McpServer,
  io: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream },
): Promise<{ closed: Promise<McpClosed>; close(): Promise<void> }> {
  const transport = new StdioServerTransport(io.stdin as never, io.stdout as never);
  // Why it closed, for the process's last word: its client's end of input, or a stop (a signal).
  let why: McpClosed = 'stopped';
  const closed = new Promise<McpClosed>((resolve) => {
    server.server.onclose = chain(server.server.onclose, () => resolve(why));
  });
  await server.connect(transport);
  const end = () => {
    why = 'input';
    void server.close();
  };
  io.stdin.once('end', end);
  io.stdin.once('close', end);
  return { closed, close: () => server.close() };
}

/** Both: the server's own handler (it marks its calls closed) and ours. */
const chain = (first: (() => void) | undefined, then: () => void) => (): void => {
  first?.();
  then();
};
