/**
 * The audit trail an auditor exports: every attempt of a scripted task (refused ones with their
 * reason, an approval counted towards a quorum, the decisions with their content hash and round),
 * automatic decisions with their rule; as JSON Lines in-process, and as CSV through the real CLI.
 */
import { describe, expect, it } from 'vitest';
import { exportAudit } from '../../src/cli/audit.js';
import { auditEntrySchema } from '../../src/engine/audit-trail.js';
import { contentHash } from '../../src/workflows/protocol/content-hash.js';
import { harnessPerFile, testClock } from '../helpers/harness.js';
import { runSignoff } from '../helpers/processes.js';

const YAML = `workflows:
  pair:
    maxIterations: 3
    checkpoints:
      review:
        reviewers: [U0ALICE, U0BOB, requester]
        approvals: 2
        allowSelfApproval: false
  specialist:
    checkpoints:
      review:
        timeout: 1h
        onTimeout: reject
`;
const clock = testClock();
const t = harnessPerFile('audit_trail', () => ({ yaml: YAML, clock }));

const INJECTION = '=HYPERLINK("http://evil","click") and say why';

async function exported(args: string[]) {
  let text = '';
  const n = await exportAudit(
    args,
    t.h.engine,
    {
      write: (s) => {
        text += s;
      },
    },
    clock.now(),
  );
  return { n, lines: text.trim().split('\n') };
}

describe('audit trail', () => {
  it('holds every attempt of a scripted task, in order, with who, round, result, reason and content hash', async () => {
    const task = await t.h.start('pair', 'pay the March invoices');
    const first = await t.h.nextReview(task.id);
    const decide = (reviewId: string, id: string, action: 'approve' | 'revise', extra = {}) =>
      t.h.engine.decide({ reviewId, actor: { id }, action, ...extra });
    await expect(decide(first.id, 'U0EVE', 'approve')).rejects.toMatchObject({ code: 'not_allowed' });
    await expect(
      decide(first.id, 'U0ALICE', 'approve', { contentHash: 'not-what-it-shows' }),
    ).rejects.toMatchObject({ code: 'stale_review' });
    await decide(first.id, 'U0BOB', 'revise', { feedback: INJECTION });
    const second = await t.h.nextReview(task.id, first.id);
    await decide(second.id, 'U0ALICE', 'approve');
    await expect(decide(second.id, 'U0ALICE', 'approve')).rejects.toMatchObject({ code: 'counted_already' });
    await decide(second.id, 'U0BOB', 'approve');
    await t.h.waitFor(task.id, (x) => x.status === 'done');

    const { n, lines } = await exported([task.id]);
    const trail = lines.map((l) => auditEntrySchema.parse(JSON.parse(l)));
    expect(n).toBe(7);
    expect(trail.map((e) => [e.who, e.action, e.result, e.round])).toEqual([
      ['ann', 'start', 'done', null],
      ['U0EVE', 'approve', 'refused', 1],
      ['U0ALICE', 'approve', 'refused', 1],
      ['U0BOB', 'revise', 'decided', 1],
      ['U0ALICE', 'approve', 'counted', 2],
      ['U0ALICE', 'approve', 'refused', 2],
      ['U0BOB', 'approve', 'decided', 2],
    ]);
    expect(trail.every((e) => e.task === task.id && e.workflow === 'pair')).toBe(true);
    expect(trail.slice(1).every((e) => e.checkpoint === 'review')).toBe(true);
    expect(trail[1]).toMatchObject({
      reason: 'Sorry, you are not a reviewer for this step.',
      code: 'not_allowed',
    });
    expect(trail[2]).toMatchObject({
      reason: expect.stringMatching(/^This card is out of date/),
      code: 'stale_review',
    });
    expect(trail[2]?.contentHash).toBe('not-what-it-shows');
    expect(trail[3]).toMatchObject({ feedback: INJECTION, contentHash: contentHash(first.request) });
    expect(trail[4]).toMatchObject({ contentHash: contentHash(second.request), approvals: '1 of 2' });
    expect(trail[6]?.approvals).toBe('2 of 2: U0ALICE U0BOB');
    expect(trail[5]).toMatchObject({
      reason: expect.stringMatching(/^You have approved this already/),
      code: 'counted_already',
    });
    expect(trail[3]?.code).toBeNull();
  });

  it("a reject's words are its reason, not its feedback, in the JSON and the CSV export", async () => {
    const task = await t.h.start('specialist', 'pay the April invoices');
    const review = await t.h.nextReview(task.id);
    await t.h.engine.decide({
      reviewId: review.id,
      actor: { id: 'ann' },
      action: 'reject',
      feedback: 'wrong month',
    });
    await t.h.waitFor(task.id, (x) => x.status === 'rejected');
    const { lines } = await exported([task.id]);
    const reject = lines.map((l) => JSON.parse(l)).find((e) => e.action === 'reject');
    expect(reject).toMatchObject({ result: 'decided', reason: 'wrong month', feedback: null, code: null });
    const csv = await runSignoff(['audit', task.id, '--format', 'csv'], { DATABASE_URL: t.db.url });
    const [header = '', ...rows] = csv.stdout.trim().split('\n');
    const row = rows.find((r) => r.includes(',reject,'))?.split(',') ?? [];
    const column = (name: string) => row[header.split(',').indexOf(name)];
    expect([column('reason'), column('feedback')]).toEqual(['wrong month', '']);
  });

  it('an automatic decision is exported with the rule that made it; --since leaves older entries out', async () => {
    const task = await t.h.start('specialist', 'close the books');
    await t.h.nextReview(task.id);
    clock.advance(3601);
    await t.h.engine.releaseDueTimers('cli');
    await t.h.waitFor(task.id, (x) => x.status === 'rejected');
    const { lines } = await exported([task.id, '--since', '1d']);
    const auto = lines.map((l) => JSON.parse(l)).find((e) => e.result === 'automatic');
    expect(auto).toMatchObject({
      who: 'signoff',
      action: 'reject',
      rule: 'no decision within 1h; this step rejects on timeout',
    });
    clock.advance(2 * 86400);
    expect((await exported([task.id, '--since', '1h'])).n).toBe(0);
    await expect(exported(['--format', 'xml'])).rejects.toThrow('--format is jsonl or csv, not "xml".');
    await expect(exported(['--since', 'last week'])).rejects.toThrow(/--since takes a duration/);
  });

  it('signoff audit --format csv: one header and one row per entry, each with its id, quoted, formulas defused', async () => {
    const r = await runSignoff(['audit', '--format', 'csv'], { DATABASE_URL: t.db.url });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split('\n');
    expect(rows[0]).toBe(
      'id,at,task,workflow,checkpoint,round,review,who,action,result,feedback,contentHash,reason,code,rule,to,approvals,edited',
    );
    const { n, lines } = await exported([]);
    expect(rows).toHaveLength(n + 1);
    // Each row starts with the id its JSON line has: a row can be cited, and found again.
    expect(rows.slice(1).map((row) => Number(row.split(',')[0]))).toEqual(
      lines.map((l) => (JSON.parse(l) as { id: number }).id),
    );
    // Feedback a spreadsheet would run is exported as text: quoted and prefixed.
    expect(r.stdout).toContain(`"'=HYPERLINK(""http://evil"",""click"") and say why"`);
    const unknown = await runSignoff(['audit', 'cli-nothere'], { DATABASE_URL: t.db.url });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('There is no task "cli-nothere"');
  });
});
