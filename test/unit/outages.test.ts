/**
 * While the database does not answer, the log says so once and then once a minute, not once per
 * poll; every other failure is logged as before. The errors are the real client's, against a port
 * nothing listens on; the clock the lines count by is moved, not waited for. (That the outage ends
 * with a line once the server answers again is test/int/database-outage.int.test.ts's.)
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { condenseOutages, OUTAGE_SUMMARY_MS } from '../../src/db/outages.js';
import { createLogger } from '../../src/logger.js';
import { unusedPort } from '../helpers/ports.js';

const [dbPort, otherPort] = [await unusedPort(), await unusedPort()];
const database = new pg.Pool({ connectionString: `postgres://u:p@127.0.0.1:${dbPort}/db` });
const elsewhere = new pg.Pool({ connectionString: `postgres://u:p@127.0.0.1:${otherPort}/db` });
afterAll(async () => {
  await Promise.all([database.end(), elsewhere.end()]);
});
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );
const refused = await failureOf(database.query('SELECT 1'));

function capture() {
  const lines: Record<string, unknown>[] = [];
  let t = 1_000_000;
  const raw = createLogger('debug', { write: (line: string) => lines.push(JSON.parse(line)) });
  const logger = condenseOutages(raw, database, () => t);
  return { logger, lines, move: (ms: number) => (t += ms) };
}

describe('a database that does not answer', () => {
  it('is said in one line without a stack, then summed up once a minute with the failures by what failed', () => {
    const { logger, lines, move } = capture();
    expect((refused as { code?: string }).code).toBe('ECONNREFUSED');
    logger.warn(
      { err: refused, queue: 'signoff-advance-slack' },
      'could not look for jobs; looking again shortly',
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, code: 'ECONNREFUSED' });
    expect(lines[0]?.msg).toBe(
      `database unavailable: could not look for jobs; looking again shortly (connect ECONNREFUSED 127.0.0.1:${dbPort}); retrying until it answers, further failures summed up once a minute`,
    );
    expect(JSON.stringify(lines[0])).not.toContain('stack');

    // Twice a second for a minute less a second, from a child logger too: counted, not written.
    const task = logger.child({ task: 't1' });
    for (let i = 0; i < 118; i++) {
      move(500);
      logger.warn({ err: refused }, 'could not look for jobs; looking again shortly');
    }
    task.error(
      { err: new Error('settling failed', { cause: refused }) },
      'job failed; it will be tried again',
    );
    expect(lines).toHaveLength(1);

    move(OUTAGE_SUMMARY_MS - 59_000);
    logger.warn({ err: refused }, 'abort listener could not reconnect');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      level: 40,
      code: 'ECONNREFUSED',
      downSeconds: 60,
      failures: {
        'could not look for jobs; looking again shortly': 118,
        'job failed; it will be tried again': 1,
        'abort listener could not reconnect': 1,
      },
      msg: 'database still unavailable after 60 s: 120 failures in the last 60 s (ECONNREFUSED)',
    });

    // The next minute's count starts from that line.
    move(30_000);
    logger.warn({ err: refused }, 'delivery sweep failed');
    expect(lines).toHaveLength(2);
  });

  it('leaves every other failure as it was: its line each time, with its stack', () => {
    const { logger, lines } = capture();
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    logger.warn({ err: bug }, 'job failed; it will be tried again');
    logger.warn({ err: bug }, 'job failed; it will be tried again');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ err: { stack: expect.stringContaining('outages.test.ts') } });
  });

  it('with the log kept to errors, still says the outage (at error), not drop it with its warnings', () => {
    const lines: Record<string, unknown>[] = [];
    const raw = createLogger('error', { write: (line: string) => lines.push(JSON.parse(line)) });
    const logger = condenseOutages(raw, database);
    logger.error({ err: refused }, 'settling the run failed on every attempt; the task fails');
    logger.error({ err: refused }, 'settling the run failed on every attempt; the task fails');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 50,
      msg: expect.stringMatching(/^database unavailable: settling the run failed on every attempt/),
    });
  });

  it("is one outage a database, said once, though the engine's and Slack's parts each ask for the logger", () => {
    const lines: Record<string, unknown>[] = [];
    const raw = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) });
    const engine = condenseOutages(raw, database);
    const slack = condenseOutages(raw, database).child({ part: 'delivery' });
    engine.warn({ err: refused }, 'could not look for jobs; looking again shortly');
    slack.warn({ err: refused }, 'delivery sweep failed');
    expect(lines.map((l) => l.msg)).toEqual([
      expect.stringMatching(/^database unavailable: could not look for jobs/),
    ]);
  });

  it("does not take another server's refusal for the database's", async () => {
    const { logger, lines } = capture();
    const other = await failureOf(elsewhere.query('SELECT 1'));
    logger.warn({ err: other }, 'could not reach the LangGraph server');
    logger.warn({ err: other }, 'could not reach the LangGraph server');
    expect(lines.map((l) => l.msg)).toEqual([
      'could not reach the LangGraph server',
      'could not reach the LangGraph server',
    ]);
  });
});
