/**
 * A model that cannot be reached (OPENAI_BASE_URL at a closed port) through the real ChatOpenAI
 * client: its refused connection is the model's, not the database's, so the task fails with the
 * sentence that says so and can be retried, instead of being retried in silence for ever.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';
import { harnessPerFile, settled } from '../helpers/harness.js';
import { unusedPort } from '../helpers/ports.js';
import { runSignoff } from '../helpers/processes.js';

const port = await unusedPort();
const t = harnessPerFile('model_unreachable', () => ({
  env: {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
    OPENAI_MAX_RETRIES: '0',
  },
}));

/** What a team's members see: the cause in plain words, never the address (an internal host, maybe). */
const SENTENCE =
  'The model service could not be reached (connection refused: nothing listens there). Retry when it recovers; if it keeps failing, ask whoever runs signoff to check OPENAI_BASE_URL.';

describe('a model that cannot be reached', () => {
  it('fails a pair task with the sentence, and Retry runs it again', async () => {
    const task = await t.h.start('pair', 'draft the launch email');
    const failed = await t.h.waitFor(task.id, settled);
    expect([failed.status, failed.statusReason]).toEqual(['failed', SENTENCE]);
    const again = await t.h.engine.retry(task.id, { id: 'ann' });
    expect(again.status).toBe('working');
    const second = await t.h.waitFor(task.id, settled);
    expect([second.status, second.statusReason]).toEqual(['failed', SENTENCE]);
  });

  it('stops a specialist at a Retry card that says the model could not be reached', async () => {
    const task = await t.h.start('specialist', 'reconcile the March invoices');
    const review = await t.h.nextReview(task.id);
    expect(review.request.body).toContain(SENTENCE);
    expect(review.request.labels.approve).toBe('Retry');
  });
});

describe('a model that cannot be reached, in the terminal', () => {
  it('specialist says so in a sentence with Retry, addressed to whoever is at the keyboard, and prints no log line or stack trace', async () => {
    const run = await runSignoff(['run', 'specialist', 'reconcile the April invoices'], {
      DATABASE_URL: t.db.url,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
      OPENAI_MAX_RETRIES: '0',
    });
    // Said to the person at the keyboard, who runs signoff: the address they set, the cause, and
    // what to fix before Retry; not whom to ask.
    expect(run.stdout).toContain(
      `The model service at 127.0.0.1:${port} could not be reached (connection refused: nothing listens there). Retry once a model service runs at 127.0.0.1:${port}, or OPENAI_BASE_URL names the address where one does.`,
    );
    expect(run.stdout).not.toContain('whoever runs signoff');
    expect(run.stdout).toContain('Review: The planner failed. Retry?');
    expect(run.stderr).not.toMatch(/"level"|stack|APIConnectionError/);
    expect(run.code).toBe(0);
  });
});

describe('a model address fetch refuses, in the terminal', () => {
  it("a port fetch never calls (9) fails the task with a sentence naming OPENAI_BASE_URL, shown in `events` too (without the address: that process did not run the step); no JSON or stack on the screen, the details in the data folder's signoff.log", async () => {
    const data = mkdtempSync(join(tmpdir(), 'signoff-bad-port-'));
    // A database of its own: the file's harness runs workers on the terminal's queue, with a model
    // at another (closed) port, and would take this task's steps as often as not.
    const db = await createTestDatabase('model_bad_port');
    try {
      const env = {
        DATABASE_URL: db.url,
        SIGNOFF_DATA_DIR: data,
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        OPENAI_MAX_RETRIES: '0',
      };
      const run = await runSignoff(['run', 'pair', 'draft the launch email'], env);
      const sentence = /\[failed: (The model service's address [^\]]*OPENAI_BASE_URL[^\]]*)\]/.exec(
        run.stdout,
      )?.[1];
      expect(sentence, run.stdout).toBeDefined();
      // The address and which part of it is wrong, not a three-way guess.
      expect(run.stdout).toContain(
        "[failed: The model service's address 127.0.0.1:9 cannot be used: web clients never call that port (fetch refuses it). Retry once OPENAI_BASE_URL is the service's address, with its own port.]",
      );
      expect(run.stdout).not.toContain('unexpected error');
      expect(run.stdout + run.stderr).not.toMatch(/"level"|\n\s+at |bad port|TypeError/);
      const log = readFileSync(join(data, 'signoff.log'), 'utf8');
      expect(log).toContain('bad port');
      expect(log).toContain('"failure":"bad_address"');

      // Another process did not run the step: it cannot know the address the step had, so names none.
      const id = /Task (cli-[0-9a-f]+)/.exec(run.stdout)?.[1] as string;
      const events = await runSignoff(['events', id], env);
      expect(events.stdout).toContain(
        "The model service's address, OPENAI_BASE_URL as it was set when the task ran, cannot be used: web clients never call that port (fetch refuses it).",
      );
      expect(events.stdout).not.toContain('127.0.0.1:9');
    } finally {
      rmSync(data, { recursive: true, force: true });
      await db.drop();
    }
  });
});
