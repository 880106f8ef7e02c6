/**
 * Scenario files (seed 004's "parrot services"): every one shipped under examples/scenarios runs
 * through `signoff test` and holds; a broken expectation exits 1 with the first difference; a bad
 * file exits 2 naming its line, and so does a name the workflow does not have; a script that runs
 * out of answers fails saying so; a run leaves nothing in the team's database.
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_WORKFLOWS } from '../../src/workflows/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { openHarness } from '../helpers/harness.js';
import { runSignoff } from '../helpers/processes.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('scenarios');
});
afterAll(async () => {
  await db?.drop();
});

const DIR = join(import.meta.dirname, '..', '..', 'examples', 'scenarios');
const files = readdirSync(DIR).filter((f) => f.endsWith('.yml'));
/** A shipped scenario's workflow: the longest workflow name its file name starts with. */
const workflowOf = (file: string) =>
  BUILT_IN_WORKFLOWS.map((w) => w.name)
    .filter((name) => file.startsWith(`${name}-`))
    .sort((a, b) => b.length - a.length)[0] as string;
const scratch = (name: string, text: string) => {
  const file = join(mkdtempSync(join(tmpdir(), 'scenario-')), name);
  writeFileSync(file, text);
  return file;
};

describe('signoff test', () => {
  it('ships a scenario for every built-in workflow', () => {
    expect(new Set(files.map(workflowOf))).toEqual(new Set(BUILT_IN_WORKFLOWS.map((w) => w.name)));
  });

  for (const file of files) {
    it(`${file} holds`, async () => {
      const r = await runSignoff(['test', workflowOf(file), '--scenario', join(DIR, file)], {
        DATABASE_URL: db.url,
      });
      expect(r.stdout.trim().split('\n').at(-1), r.stdout + r.stderr).toMatch(/^scenario ".+": ok \(/);
      expect(r.code).toBe(0);
    });
  }

  it('a broken expectation exits 1 with the first difference', async () => {
    const file = scratch(
      'wrong.yml',
      'task: write the haiku\nreviews:\n  review: [reject]\nexpect:\n  status: done\n  contains: [haiku]\n',
    );
    const r = await runSignoff(['test', 'pair', '--scenario', file], { DATABASE_URL: db.url });
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n').at(-1)).toBe(
      'scenario "wrong.yml": FAILED: expected status done, got rejected (rejected at review)',
    );
  });

  it('a bad file exits 2 naming its line, and a bad answer says which answers there are', async () => {
    const file = scratch('bad.yml', 'task: x\nreviews:\n  review:\n    - maybe\nexpect:\n  status: done\n');
    const r = await runSignoff(['test', 'pair', '--scenario', file], { DATABASE_URL: db.url });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${file}:4:7 reviews.review.0: expected approve, reject or { revise: <the feedback> }`,
    );
  });

  it('an agent or a checkpoint the workflow does not have is refused with its line and the valid names', async () => {
    const file = scratch(
      'typos.yml',
      'task: x\nagents:\n  Auther: "hello"\nreviews:\n  reveiw: [approve]\nexpect:\n  status: done\n',
    );
    const r = await runSignoff(['test', 'pair', '--scenario', file], { DATABASE_URL: db.url });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${file}:3:3 agents.Auther: pair has no agent "Auther" (did you mean Author?); its agents are Author, Reviewer`,
    );
    expect(r.stderr).toContain(
      `${file}:5:3 reviews.reveiw: pair has no checkpoint "reveiw" (did you mean review?); its checkpoints are review`,
    );
    expect(r.stdout).not.toContain('scenario "typos.yml": ok');
  });

  it('a file with a bad answer and names the workflow lacks reports every problem, each at its key', async () => {
    const file = scratch(
      'several.yml',
      'task: x\nagents:\n  Auther:\n    - hello\nreviews:\n  reveiw:\n    - maybe\nexpect:\n  status: done\n',
    );
    const r = await runSignoff(['test', 'pair', '--scenario', file], { DATABASE_URL: db.url });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `${file}:3:3 agents.Auther: pair has no agent "Auther" (did you mean Author?); its agents are Author, Reviewer`,
      `${file}:6:3 reviews.reveiw: pair has no checkpoint "reveiw" (did you mean review?); its checkpoints are review`,
      `${file}:7:7 reviews.reveiw.0: expected approve, reject or { revise: <the feedback> }`,
    ]);
  });

  it('a review asking more often than the file answers it fails, saying so', async () => {
    const file = scratch(
      'short.yml',
      'task: write the haiku\nreviews:\n  review: [{ revise: shorter }]\nexpect:\n  status: done\n',
    );
    const r = await runSignoff(['test', 'pair', '--scenario', file], { DATABASE_URL: db.url });
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n').at(-1)).toBe(
      'scenario "short.yml": FAILED: the review "review" asked a 2nd time, but the file answers it 1 time: add an answer under reviews.review',
    );
    // The task was in the scenario's own database, dropped after the run: nothing points to it.
    expect(r.stdout).toContain('task cli-');
    expect(r.stdout).not.toMatch(/npx signoff (resume|retry)/);
  });

  it('contains reads in order: a text met before the feedback does not count for after it', async () => {
    // The Author names the formats in the first cycle, before anyone asked.
    const file = scratch(
      'early.yml',
      [
        'task: write the announcement',
        'agents:',
        '  Author: ["Draft: export.", "Draft: CSV and JSON export."]',
        'reviews:',
        '  review: [{ revise: name the formats }, approve]',
        'expect:',
        '  status: done',
        '  contains: ["give feedback by", "CSV and JSON"]',
        '',
      ].join('\n'),
    );
    const r = await runSignoff(['test', 'pair', '--scenario', file], { DATABASE_URL: db.url });
    expect(r.code).toBe(0);
    // The last answer repeats, so the second cycle names them again after the feedback: it holds.
    const strict = scratch(
      'strict.yml',
      [
        'task: write the announcement',
        'agents:',
        '  Author: ["Draft: export.", "Draft: CSV and JSON export.", "Final: export."]',
        'reviews:',
        '  review: [{ revise: name the formats }, approve]',
        'expect:',
        '  status: done',
        '  contains: ["give feedback by", "CSV and JSON"]',
        '',
      ].join('\n'),
    );
    const failed = await runSignoff(['test', 'pair', '--scenario', strict], { DATABASE_URL: db.url });
    expect(failed.code).toBe(1);
    expect(failed.stdout.trim().split('\n').at(-1)).toBe(
      'scenario "strict.yml": FAILED: expected "CSV and JSON" after "give feedback by" in the transcript',
    );
  }, 180_000);

  it('says so when the user of DATABASE_URL may not make the database a run needs', async () => {
    // A user who owns its database (so signoff can set it up) but may not create others.
    const suffix = Math.random().toString(16).slice(2, 10);
    const [role, own] = [`nocreate_${suffix}`, `t_nocreate_${suffix}`];
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'pw' NOCREATEDB`);
      await admin.query(`CREATE DATABASE ${own} OWNER ${role}`);
      const url = new URL(db.url);
      url.username = role;
      url.password = 'pw';
      url.pathname = `/${own}`;
      const r = await runSignoff(['test', 'pair', '--scenario', join(DIR, 'pair-happy-path.yml')], {
        DATABASE_URL: url.toString(),
      });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(
        'signoff test runs in a database of its own, made for the run and dropped after it, and the user in DATABASE_URL may not create databases: grant it CREATEDB',
      );
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${own} WITH (FORCE)`);
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.end();
    }
  }, 120_000);

  it('knows each workflow by its agents and checkpoints, your own graph apart', async () => {
    const h = await openHarness({
      url: db.url,
      work: false,
      yaml: [
        'workflows:',
        '  specialist:',
        '    specialists: [tax]',
        '    agents: { planner: { name: Router } }',
        '  notes:',
        '    agents: { writer: {}, editor: { name: Editor } }',
        '    stages: [{ id: draft, agents: [writer, editor], review: read }]',
        '  mailer:',
        '    module: ./examples/approval-agent/graph.ts',
        '',
      ].join('\n'),
    });
    try {
      expect(Object.fromEntries(h.parts)).toEqual({
        pair: { agents: ['Author', 'Reviewer'], checkpoints: ['review'] },
        specialist: { agents: ['Router', 'Tax specialist'], checkpoints: ['review', 'retry'] },
        'goal-plan': { agents: ['Evaluator', 'Planner', 'Executor'], checkpoints: ['goal', 'plan'] },
        proposal: {
          agents: [
            'Query generator',
            'Librarian',
            'Synthesizer',
            'Proposal writer',
            'Novelty reviewer',
            'Feasibility reviewer',
            'Review chair',
          ],
          checkpoints: ['query_review', 'insight_review', 'final_review'],
        },
        ask: { agents: [], checkpoints: ['review', 'tool_call'] },
        notes: { agents: ['writer', 'Editor'], checkpoints: ['read'] },
        mailer: { agents: expect.any(Array), checkpoints: undefined },
      });
    } finally {
      await h.close();
    }
  });

  it('leaves nothing in the database it was pointed at: no task, no audit entry, no scratch database', async () => {
    const r = await runSignoff(['test', 'pair', '--scenario', join(DIR, 'pair-happy-path.yml')], {
      DATABASE_URL: db.url,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const count = async (sql: string) => Number((await client.query(sql)).rows[0].n);
      expect(await count('SELECT count(*) AS n FROM signoff.tasks')).toBe(0);
      expect(await count('SELECT count(*) AS n FROM signoff.audit')).toBe(0);
      expect(
        await count("SELECT count(*) AS n FROM pg_database WHERE datname LIKE 'signoff_scenario_%'"),
      ).toBe(0);
    } finally {
      await client.end();
    }
  });
});
