/**
 * The terminal prints agents' words as the model writes them (issue 22), and does not print them
 * again when the step is saved: `signoff run pair …` as a process, on the real ChatOpenAI client
 * against the fake model server writing a word every TOKEN_MS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { startSignoff } from '../helpers/processes.js';

const TOKEN_MS = 50;
const WORDS = 40;
const answer = (n: number) =>
  `Answer ${n}: ${Array.from({ length: WORDS - 3 }, (_, i) => `word${i}`).join(' ')} end.`;
const model = new FakeOpenAI({ tokenDelayMs: TOKEN_MS, reply: (_, n) => answer(n) });
let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  db = await createTestDatabase('terminal_streams');
  await model.start();
});
afterAll(async () => {
  await model.stop();
  await db?.drop();
});

describe('the terminal, on a model that streams', () => {
  it('prints an agent’s words while the model is still writing them, and once only', async () => {
    const run = startSignoff(['run', 'pair', 'write the release note'], {
      DATABASE_URL: db.url,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.url,
    });
    await run.waitFor(/Answer 1: word0 word1 word2 /, 30_000);
    // The first answer is on the screen while the model still writes it.
    expect(model.calls[0]?.tokensSent ?? WORDS).toBeLessThan(WORDS);
    await run.waitFor(/to approve/, 30_000);
    run.send('approve');
    const end = await run.exited;
    expect(end.code, end.stderr).toBe(0);
    // Each answer once, whole, under its agent's name: as written, and not again when saved.
    for (const n of [1, 2, 3]) expect(end.stdout.split(`Answer ${n}: word0`).length - 1, end.stdout).toBe(1);
    expect(end.stdout).toMatch(/Author:\nAnswer 1: word0 .* word36 end\./);
  }, 90_000);
});
