/**
 * Standing rules at the terminal, through the real CLI process: "always" at a review approves it
 * and proposes a rule of the scope picked by number; `signoff rules` lists it, `rules approve`
 * signs it off (refused to its proposer unless the config allows); the next review it covers is
 * approved by it at once and says so; `rules revoke` ends it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { runSignoff } from '../helpers/processes.js';

let db: TestDatabase;
const configs: Record<string, string> = {};
beforeAll(async () => {
  db = await createTestDatabase('terminal_rules');
  const dir = mkdtempSync(join(tmpdir(), 'terminal-rules-'));
  for (const [name, self] of [
    ['strict', false],
    ['self', true],
  ] as const) {
    configs[name] = join(dir, `${name}.yml`);
    writeFileSync(configs[name], `alwaysAllow:\n  reviewers: [anyone]\n  allowSelfApproval: ${self}\n`);
  }
});
afterAll(async () => {
  await db?.drop();
});

const env = (config: string) => ({ DATABASE_URL: db.url, SIGNOFF_CONFIG: configs[config] as string });

describe('rules at the terminal', () => {
  // Nine signoff processes one after another: on two busy cores, over a minute.
  it('always → a scope by number: approved and proposed; signed off with rules approve; the next review is approved by it; revoked, listed no more', async () => {
    const first = await runSignoff(['run', 'ask', 'Ship 2.3 tonight?'], env('strict'), 'always\n9\n2\n');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /1\. this task's reviews at "review"\n\s+2\. every review of ask at "review"/,
    );
    expect(first.stdout).toMatch(/Type a number from 1 to 2/);
    expect(first.stdout).toContain('"reject" to reject, "always" to approve and always allow.');
    expect(first.stdout).toMatch(/Approved; rule #1 is proposed\./);
    // Its hint names the config file, without which no rule can be signed off.
    expect(first.stdout).toMatch(
      /It applies once signed off \(SIGNOFF_CONFIG=\S+strict\.yml npx signoff rules approve 1\)/,
    );
    // The rule as the task's feed shows it, once.
    expect(first.stdout.match(/proposed rule #1: always allow/g)).toHaveLength(1);
    expect(first.stdout).toMatch(/task \S+: done/);

    const listed = await runSignoff(['rules'], env('strict'));
    expect(listed.stdout).toMatch(
      /#1 {2}always allow every review of ask at "review" — proposed by cli:\S+ \(0 of 1 sign-offs\)/,
    );
    // Without the config file: listed, said to apply nothing, and not signed off.
    const bare = { DATABASE_URL: db.url };
    expect((await runSignoff(['rules'], bare)).stdout).toMatch(
      /proposed by cli:\S+\nAlways allow is not set up in this config \(no alwaysAllow\): these rules approve nothing/,
    );
    const off = await runSignoff(['rules', 'approve', '1'], bare);
    expect(off.code).toBe(2);
    expect(off.stderr).toMatch(
      /Run with the config file that sets it: SIGNOFF_CONFIG=<file> npx signoff rules/,
    );
    const own = await runSignoff(['rules', 'approve', '1'], env('strict'));
    // The words are right; the person may not: could not do what was asked.
    expect(own.code).toBe(1);
    expect(own.stderr).toMatch(/you proposed this rule, so someone else has to approve it/);

    const signed = await runSignoff(['rules', 'approve', '1'], env('self'));
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stdout).toMatch(/#1 .* active: signed off by cli:\S+; approved 0 reviews/);

    const second = await runSignoff(['run', 'ask', 'Ship 2.4 tonight?'], env('self'));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/→ approve by rule #1 \(proposed by cli:\S+, approved by cli:\S+\)/);
    expect(second.stdout).toMatch(/task \S+: done/);

    const revoked = await runSignoff(['rules', 'revoke', '1'], env('self'));
    expect(revoked.stdout).toMatch(/#1 .* revoked by cli:/);
    expect((await runSignoff(['rules'], env('self'))).stdout).toMatch(
      /No rules proposed or signed off\.\n\(1 revoked or refused: see .*audit\)/,
    );
    const usage = await runSignoff(['rules', 'approve', 'x'], env('self'));
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/usage: .* rules \[approve\|reject\|revoke <number>\]/);
  }, 180_000);
});
