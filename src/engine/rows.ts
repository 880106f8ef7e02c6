/**
 * Rows read into the engine's shapes (shapes.ts). A row comes as the database gives it: snake_case
 * columns, timestamps as Dates (a plain SELECT) or as strings (through `to_jsonb`). Its columns
 * are renamed, its timestamps written as JavaScript writes them (`Date#toISOString`, so a row
 * reads the same whichever statement produced it), and the result is parsed: a row that does
 * not fit is refused here, naming the row and what does not fit, instead of passing on as a lie.
 */
import type { z } from 'zod';
import { reviewSchema, taskSchema } from './shapes.js';

/** A reader of one kind of row: `what` names it in errors, `timestamps` are its timestamp columns. */
export function rowReader<S extends z.ZodType>(what: string, schema: S, timestamps: readonly string[]) {
  return (row: unknown): z.output<S> => {
    const id = (row as { id?: unknown } | null)?.id;
    const refuse = (why: string, cause?: unknown) =>
      new Error(`The ${what} ${String(id)} as stored does not read as a ${what}: ${why}`, { cause });
    if (!row || typeof row !== 'object') throw refuse('it is not a row');
    const named: Record<string, unknown> = {};
    for (const [column, value] of Object.entries(row)) {
      let v = value;
      if (timestamps.includes(column) && v !== null && v !== undefined) {
        const at = v instanceof Date ? v : new Date(String(v));
        if (Number.isNaN(at.getTime())) throw refuse(`${column} is not a time (${String(v)})`);
        v = at.toISOString();
      }
      named[column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = v;
    }
    const parsed = schema.safeParse(named);
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(row)'}: ${i.message}`);
    throw refuse(issues.join('; '), parsed.error);
  };
}

/** A `signoff.tasks` row (its `version` is the database's own and is not part of a task). */
export const taskFromRow = rowReader('task', taskSchema, ['created_at', 'updated_at']);

/** A `signoff.reviews` row (its `applied_at` is the runner's own and is not part of a review). */
export const reviewFromRow = rowReader('review', reviewSchema, [
  'decided_at',
  'due_at',
  'created_at',
  'claimed_at',
]);
