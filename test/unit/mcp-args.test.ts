import { describe, expect, it } from 'vitest';
import { readMcpArgs } from '../../src/cli/mcp-args.js';

const client = { tokenSha256: 'a'.repeat(64), channels: ['C0WORK'], callbackUrls: [], perMinute: 60 };

describe('signoff mcp --client', () => {
  it('asks as the client named, or the only one, with its channels and rate', () => {
    const two = { clients: { 'coding-agent': client, 'deploy-bot': { ...client, channels: ['C0OPS'] } } };
    expect(readMcpArgs(['--client', 'deploy-bot'], two)).toEqual({
      client: { ...client, channels: ['C0OPS'], name: 'deploy-bot' },
    });
    expect(readMcpArgs(['--client=coding-agent'], two)).toMatchObject({ client: { name: 'coding-agent' } });
    expect(readMcpArgs([], { clients: { 'coding-agent': client } })).toMatchObject({
      client: { name: 'coding-agent' },
    });
  });

  it('says what to fix: no client configured, several to choose from, an unknown name or argument', () => {
    const two = { clients: { 'coding-agent': client, 'deploy-bot': client } };
    expect(readMcpArgs([], { clients: {} }, '/srv/signoff/signoff.yml')).toEqual({
      error:
        'npx signoff mcp asks as one of the config file\'s api.clients, and /srv/signoff/signoff.yml has none: add one (see the README, "Ask from an MCP client").',
    });
    expect(readMcpArgs([], two)).toEqual({
      error: 'Name the client to ask as: npx signoff mcp --client <name> (coding-agent, deploy-bot).',
    });
    expect(readMcpArgs(['--client', 'nobody'], two)).toEqual({
      error: expect.stringContaining('There is no client "nobody"'),
    });
    expect(readMcpArgs(['--verbose'], two)).toEqual({
      error: expect.stringContaining('Unknown argument "--verbose"'),
    });
  });

  it('with no config file read (SIGNOFF_CONFIG unset: a signoff.yml in the folder is not read), says so and how to set it, not "add one"', () => {
    expect(readMcpArgs([], { clients: {} })).toEqual({
      error:
        "npx signoff mcp asks as one of the config file's api.clients, and no config file was read (SIGNOFF_CONFIG is not set; a signoff.yml here is not read without it): set it to the file that lists the client, e.g. SIGNOFF_CONFIG=signoff.yml npx signoff mcp",
    });
  });
});
