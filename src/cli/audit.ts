/**
 * `signoff audit [<task>] [--since 7d] [--format jsonl|csv]`: the audit trail (who approved
 * what, refused attempts, automatic decisions), for an auditor or a spreadsheet. JSON Lines by
 * default: one entry per line, every field, streamed as read.
 */
import { parseArgs } from 'node:util';
import { durationSeconds } from '../config/duration.js';
import type { AuditEntry, Engine } from '../engine/index.js';
import { SignoffError } from '../errors.js';
import { SHELL } from './help.js';
import type { Output } from './printer.js';

const auditUsage = (cli: string) =>
  `usage: ${cli}audit [<task-id>] [--since 7d | --since 2026-11-01] [--format jsonl|csv]`;

/** Every field of an entry, `id` first: the key an auditor cites a row by, as in the JSON export. */
const COLUMNS: (keyof AuditEntry)[] = [
  'id',
  'at',
  'task',
  'workflow',
  'checkpoint',
  'round',
  'review',
  'who',
  'action',
  'result',
  'feedback',
  'contentHash',
  'reason',
  'code',
  'rule',
  'to',
  'approvals',
  'edited',
];

/**
 * Writes the trail; returns how many entries it wrote. Bad arguments throw a `SignoffError`, whose
 * hints name the command as `cli` says (help.ts: SHELL, or AT_THE_PROMPT).
 */
export async function exportAudit(
  args: string[],
  engine: Engine,
  out: Output,
  now: Date,
  cli = SHELL,
): Promise<number> {
  const parsed = parseAuditArgs(args, now, cli);
  if (parsed.taskId && !(await engine.getTask(parsed.taskId))) {
    throw new SignoffError('unknown_task', `There is no task "${parsed.taskId}". See them with: ${cli}tasks`);
  }
  if (parsed.format === 'csv') out.write(`${COLUMNS.join(',')}\n`);
  let n = 0;
  for await (const entry of engine.auditTrail({ taskId: parsed.taskId, since: parsed.since })) {
    out.write(`${parsed.format === 'csv' ? csvRow(entry) : JSON.stringify(entry)}\n`);
    n++;
  }
  return n;
}

function parseAuditArgs(
  args: string[],
  now: Date,
  cli: string,
): { taskId?: string; since?: Date; format: 'jsonl' | 'csv' } {
  let values: { since?: string; format?: string };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      options: { since: { type: 'string' }, format: { type: 'string' } },
      allowPositionals: true,
    }));
  } catch (error) {
    throw new SignoffError('bad_arguments', `${(error as Error).message}\n${auditUsage(cli)}`);
  }
  if (positionals.length > 1)
    throw new SignoffError('bad_arguments', `Name one task at most.\n${auditUsage(cli)}`);
  const format = values.format ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'csv') {
    throw new SignoffError('bad_arguments', `--format is jsonl or csv, not "${format}".`);
  }
  return { taskId: positionals[0], since: values.since ? since(values.since, now) : undefined, format };
}

/** "7d" (that long ago) or a date (from then). */
function since(text: string, now: Date): Date {
  const seconds = durationSeconds(text);
  if (seconds !== undefined) return new Date(now.getTime() - seconds * 1000);
  const date = /^\d{4}-\d{2}-\d{2}/.test(text) ? new Date(text) : undefined;
  if (!date || Number.isNaN(date.getTime())) {
    throw new SignoffError(
      'bad_arguments',
      `--since takes a duration (7d, 12h) or a date (2026-11-01), not "${text}".`,
    );
  }
  return date;
}

/**
 * One CSV row (RFC 4180 quoting). A cell that a spreadsheet would run as a formula (=, +, -, @)
 * is prefixed with a quote: feedback is typed by anyone, and an auditor opens this in Excel.
 */
function csvRow(entry: AuditEntry): string {
  return COLUMNS.map((c) => {
    const v = entry[c];
    if (v === null || v === undefined) return '';
    let cell = String(v);
    if (/^[=+\-@\t\r]/.test(cell)) cell = `'${cell}`;
    return /[",\n\r]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
  }).join(',');
}
