/**
 * A workflow on a LangGraph server, the parts that need no server: its thread ids, its config,
 * and how the server's failures are told to people.
 */
import { describe, expect, it } from 'vitest';
import { parseWorkflowConfig } from '../../src/config/workflows.js';
import { describeFailure } from '../../src/failures.js';
import { remoteFailure } from '../../src/workflows/remote/errors.js';
import { remoteThreadId } from '../../src/workflows/remote/thread-ids.js';

const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('remote thread ids', () => {
  it('are version-5 UUIDs, the same for the same graph thread and another after a redirect', () => {
    const first = remoteThreadId('task-1');
    expect(first).toMatch(UUID_V5);
    expect(remoteThreadId('task-1')).toBe(first);
    expect(remoteThreadId('task-1#1')).toMatch(UUID_V5);
    expect(remoteThreadId('task-1#1')).not.toBe(first);
  });
});

describe('remote: in the config file', () => {
  const parse = (lines: string[]) =>
    parseWorkflowConfig(['workflows:', '  release:', ...lines].join('\n'), 'team.yml');

  it('names a new workflow, with a timeout by default', () => {
    const config = parse(['    remote: { url: "http://localhost:2024", graph: release }']);
    expect(config.workflows.release?.remote).toEqual({
      url: 'http://localhost:2024',
      graph: 'release',
      timeoutSeconds: 30,
    });
  });

  it('refuses an address that is not http(s), a misspelt key, and a module beside it, at their lines', () => {
    expect(() => parse(['    remote: { url: "ftp://host", graph: release }'])).toThrow(
      'team.yml:3:15 workflows.release.remote.url: expected the http(s) address of a LangGraph server',
    );
    expect(() => parse(['    remote: { url: "http://host", graph: release, apikey: k }'])).toThrow(
      /unknown key "apikey"/,
    );
    expect(() =>
      parse(['    module: ./graph.ts', '    remote: { url: "http://host", graph: release }']),
    ).toThrow(
      'workflows.release.remote: a workflow runs one graph: a remote graph, a module or stages, not two of them',
    );
  });
});

describe("a LangGraph server's failures", () => {
  const said = (error: unknown) => describeFailure(remoteFailure(error, 'testing')).sentence;

  it('are sentences about the server, never about the model service or in the server’s words', () => {
    const refused = Object.assign(
      new Error('Unable to connect to LangGraph server. Original error: fetch failed'),
      {
        name: 'ConnectionError',
      },
    );
    expect(said(refused)).toMatch(/^The LangGraph server this workflow runs on could not be reached\./);
    expect(
      said(Object.assign(new Error('HTTP 401: {"detail":"bad key sk-123"}'), { status: 401 })),
    ).toContain("refused signoff's API key");
    expect(said(Object.assign(new Error('HTTP 404: assistant not found'), { status: 404 }))).toContain(
      'is the graph named in the workflow',
    );
    expect(said(Object.assign(new Error('HTTP 503'), { status: 503 }))).toContain('failed on its side');
    expect(said(new DOMException('The operation timed out.', 'TimeoutError'))).toContain(
      'did not answer in time',
    );
    for (const error of [refused, Object.assign(new Error('x'), { status: 401 })])
      expect(said(error)).not.toMatch(/model service|sk-123/);
  });
});
