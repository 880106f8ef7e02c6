/**
 * `.env.example` is what a self-hoster copies to `.env` for `docker run --env-file` (and compose):
 * it must start as it is, and it must name every variable signoff reads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_VARIABLES, loadConfig } from '../../src/config/config.js';

const example = readFileSync(join(import.meta.dirname, '..', '..', '.env.example'), 'utf8');
/** The variables the file sets, as `--env-file` reads them: `NAME=value` lines, comments skipped. */
const entries = example
  .split('\n')
  .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
  .map((line) => line.split('=', 1)[0] as string);

describe('.env.example', () => {
  it('names every variable config.ts reads, and nothing else', () => {
    expect([...entries].sort()).toEqual([...ENV_VARIABLES].sort());
  });

  it('starts with every variable present and empty: an empty VAR= means unset', () => {
    const empty = Object.fromEntries(entries.map((name) => [name, '']));
    expect(loadConfig(empty, '/srv/app')).toEqual(loadConfig({}, '/srv/app'));
  });

  it('starts as it is (copied to .env unchanged)', () => {
    const given = Object.fromEntries(
      example
        .split('\n')
        .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
        .map((line) => [line.split('=', 1)[0] as string, line.slice(line.indexOf('=') + 1)]),
    );
    expect(loadConfig(given, '/srv/app').slack).toBeUndefined();
  });

  it('an empty value is unset for every kind of variable, blanks included', () => {
    const c = loadConfig(
      {
        OPENAI_TIMEOUT_SECONDS: '',
        SIGNOFF_WORKERS: '  ',
        LOG_LEVEL: '',
        SIGNOFF_ROLE: '',
        PORT: '',
        SLACK_BOT_TOKEN: ' ',
      },
      '/srv/app',
    );
    expect(c.model.timeoutMs).toBe(120_000);
    expect(c.queue.workers).toBe(4);
    expect(c.logLevel).toBeUndefined();
    expect(c.role).toBe('all');
    expect(c.port).toBe(3000);
    expect(c.slack).toBeUndefined();
  });
});
