/**
 * `signoff tasks`: a header and columns as wide as their widest cell, so a long status
 * ("stopped without approval") or workflow name never pushes a row out of line. SPENT is what the
 * task's models cost so far (of its budget). A failed task's
 * reason follows on its own indented line.
 */
import { type Task, usageInWords } from '../engine/index.js';
import { printable, statusWords } from './printer.js';
import { when } from './when.js';

const HEADER = ['ID', 'WORKFLOW', 'STATUS', 'UPDATED', 'SPENT', 'TASK'];
/** The task's text, on one line and cut: the table is a list to find a task in, not to read it. */
const TEXT_CHARS = 60;

export function taskTable(tasks: Task[], now: Date, timeZone?: string): string {
  const rows = tasks.map((t) => [
    t.id,
    t.workflow,
    statusWords(t.status),
    when(t.updatedAt, now, timeZone),
    // What its models cost (of its budget), "-" before any answered.
    spent(t),
    oneLine(t.text),
  ]);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return [
    line(HEADER),
    ...tasks.flatMap((t, i) => [
      line(rows[i] as string[]),
      ...(t.status === 'failed' && t.statusReason ? [`    ${printable(t.statusReason)}`] : []),
    ]),
  ]
    .map((l) => `${l}\n`)
    .join('');
}

const spent = (t: Task) => (t.tokensIn + t.tokensOut ? (usageInWords(t)?.split(' spent')[0] ?? '-') : '-');

function oneLine(text: string): string {
  const flat = printable(text).replace(/\s+/g, ' ').trim();
  return flat.length > TEXT_CHARS ? `${flat.slice(0, TEXT_CHARS - 1)}…` : flat;
}
