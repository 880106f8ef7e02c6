/** What reaches the log: errors whole (stack, cause), never a secret inside them or in a line. */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { boltLogger } from '../../src/slack/shared/bolt-logger.js';

function capture() {
  const lines: string[] = [];
  const logger = createLogger('debug', { write: (line: string) => lines.push(line) });
  return { logger, text: () => lines.join('\n'), json: () => lines.map((l) => JSON.parse(l)) };
}

describe('logs', () => {
  it('keep an error with its stack and cause, and leave out the pg client it carries', () => {
    const { logger, text, json } = capture();
    const client = new pg.Client({ connectionString: 'postgres://signoff:hunter2@db.internal:5432/signoff' });
    const cause = Object.assign(new Error('connection terminated unexpectedly'), { code: '57P01' });
    const error = Object.assign(new Error('query failed', { cause }), { client, severity: 'FATAL' });
    logger.error({ err: error }, 'step failed');
    const [entry] = json();
    expect(entry.err.type).toBe('Error');
    expect(entry.err.message).toBe('query failed');
    expect(entry.err.stack).toContain('logger.test.ts');
    expect(entry.err.severity).toBe('FATAL');
    expect(entry.err.cause.message).toBe('connection terminated unexpectedly');
    expect(entry.err.cause.code).toBe('57P01');
    expect(entry.err.client).toBeUndefined();
    expect(text()).not.toContain('hunter2');
  });

  it('scrub tokens inside strings: Slack tokens, the socket ticket, API keys, URL passwords', () => {
    const { logger, text } = capture();
    const bolt = boltLogger(logger);
    bolt.debug(
      'Going to establish a new connection to wss://wss.slack.test/link/?ticket=abc123secret&app_id=A1',
    );
    bolt.info('token xoxb-1111-2222-abcdef was refreshed; app token xapp-1-A1-999-fff');
    bolt.error(new Error('apiKey sk-proj-abcdefghijkl rejected at postgres://u:hunter2@h/db'));
    logger.warn({ err: new Error('Bearer xoxp-9-9-9 expired') }, 'calling with Bearer abc.def.ghi');
    const all = text();
    for (const secret of [
      'abc123secret',
      'xoxb-1111',
      'xapp-1-A1',
      'sk-proj-abcdef',
      'hunter2',
      'xoxp-9',
      'abc.def.ghi',
    ]) {
      expect(all).not.toContain(secret);
    }
    expect(all).toContain('ticket=[redacted]');
    expect(all).toContain('xox?-[redacted]');
  });
});
