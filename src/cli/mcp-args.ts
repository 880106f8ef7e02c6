/**
 * `signoff mcp [--client <name>]`: which of the config file's API clients the local MCP client
 * asks as. The process that starts `signoff mcp` is trusted as the operator set it up (it has the
 * database and the Slack token already), so it names its client rather than showing a token.
 */
import type { ApiClient, ApiConfig } from '../config/api-clients.js';
import { CLI } from './help.js';

/**
 * `configPath`: the config file this process read (SIGNOFF_CONFIG), if any. A signoff.yml in the
 * folder is not read unless SIGNOFF_CONFIG names it, so "there is none" with no file read would send
 * someone to add a client to a file that already has one.
 */
export function readMcpArgs(
  argv: readonly string[],
  api: ApiConfig,
  configPath?: string,
): { client: ApiClient } | { error: string } {
  const names = Object.keys(api.clients);
  let name: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const inline = arg.match(/^--client=(.*)$/);
    if (inline) name = inline[1];
    else if (arg === '--client') name = argv[++i];
    else return { error: `Unknown argument "${arg}": ${CLI} mcp [--client <name>]` };
  }
  if (!names.length && !configPath)
    return {
      error: `${CLI} mcp asks as one of the config file's api.clients, and no config file was read (SIGNOFF_CONFIG is not set; a signoff.yml here is not read without it): set it to the file that lists the client, e.g. SIGNOFF_CONFIG=signoff.yml ${CLI} mcp`,
    };
  if (!names.length)
    return {
      error: `${CLI} mcp asks as one of the config file's api.clients, and ${configPath} has none: add one (see the README, "Ask from an MCP client").`,
    };
  if (name === undefined) {
    if (names.length === 1) return { client: clientNamed(api, names[0] as string) };
    return { error: `Name the client to ask as: ${CLI} mcp --client <name> (${names.join(', ')}).` };
  }
  if (!api.clients[name])
    return { error: `There is no client "${name}" in the config file's api.clients (${names.join(', ')}).` };
  return { client: clientNamed(api, name) };
}

const clientNamed = (api: ApiConfig, name: string): ApiClient => ({
  ...(api.clients[name] as ApiClient),
  name,
});
