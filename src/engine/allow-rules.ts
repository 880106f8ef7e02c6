/**
 * Standing rules ("Approve and always allow…"): which scopes a review offers, whether a rule
 * covers a review, and the rows. A rule is proposed by a reviewer as they approve a review, signed
 * off by the people the config file's `alwaysAllow` names (rule-decisions.ts), and from then on
 * approves every review it covers when the review opens (settling.ts), once each, until it is
 * revoked or expires.
 */
import type { ReviewFacts } from '../config/conditions.js';
import { atomically, type Queryable } from '../db/queryable.js';
import { canonicalJson, shownJson } from '../workflows/protocol/canonical-json.js';
import { callsAsEdited, toolCallsOf } from '../workflows/protocol/standard-interrupts.js';
import { eventKey } from './event-keys.js';
import { record } from './event-store.js';
import { rowReader } from './rows.js';
import { allowRuleSchema } from './shapes.js';
import { reviewFacts } from './sign-off-rules.js';
import { audit } from './task-rows.js';
import type { AllowRule, Review, RuleScope, Task } from './types.js';
import { isBudgetReview } from './usage.js';

export const ruleFromRow = rowReader('rule', allowRuleSchema, [
  'proposed_at',
  'decided_at',
  'expires_at',
  'revoked_at',
]);

/** The longest arguments (as shown) a rule for exactly these arguments may hold: a message shows them whole. */
export const CALL_RULE_ARGS_MAX = 1000;

/**
 * How long the arguments may be once shown: as `shownJson` writes them, each character a surface
 * may have to write as an entity (`&amp;`, `&lt;`) counted as five.
 */
const shownLength = (args: unknown) => shownJson(args).replace(/[&<>]/g, '&amp;').length;

/** The scopes a rule proposed from this review may take, narrowest last: a tool call's only for calls of one tool. */
export function scopesFor(task: Task, review: Pick<Review, 'request' | 'id' | 'taskId'>): RuleScope[] {
  // A budget review is the engine's own: no rule may let a task spend on its own.
  if (isBudgetReview(review)) return [];
  const [facts] = reviewFacts(task, review.request);
  const base = {
    workflow: task.workflow,
    checkpoint: review.request.kind,
    channel: facts?.channel ?? '',
  };
  const scopes: RuleScope[] = [
    { kind: 'task', ...base, taskId: task.id },
    { kind: 'workflow', ...base },
  ];
  const asked = toolCallsOf(review.request) ?? [];
  // What an approval approves now: the calls as an Edit counted towards the quorum left them. A
  // call the edit rejected is approved by nobody, so no rule on its tool or arguments is offered.
  const { edit } = review.request;
  const calls = edit ? (callsAsEdited(review.request, edit.values) ?? []) : asked;
  const tools = new Set(calls.map((c) => c.name));
  const [call] = calls;
  if (call && tools.size === 1 && calls.length === asked.length) {
    scopes.push({ kind: 'tool', ...base, tool: call.name });
    // Signers approve arguments they read whole: those too long for a rule's message get no rule.
    if (calls.length === 1 && shownLength(call.args) <= CALL_RULE_ARGS_MAX)
      scopes.push({ kind: 'call', ...base, tool: call.name, args: call.args });
  }
  return scopes;
}

/** Whether a rule's scope covers a review with these facts (every call of it, for a tool's scope). */
export function covers(scope: RuleScope, taskId: string, facts: ReviewFacts[]): boolean {
  const [first] = facts;
  if (
    !first ||
    first.workflow !== scope.workflow ||
    first.checkpoint !== scope.checkpoint ||
    first.channel !== scope.channel
  )
    return false;
  switch (scope.kind) {
    case 'task':
      return taskId === scope.taskId;
    case 'workflow':
      return true;
    case 'tool':
      return facts.every((f) => f.tool === scope.tool);
    case 'call':
      return facts.every(
        (f) => f.tool === scope.tool && canonicalJson(f.args) === canonicalJson(scope.args ?? {}),
      );
  }
}

/**
 * The active rule that covers a review about to open, if one does (the oldest), locked until the
 * review's transaction ends and checked again once locked: a revoke waits for the review that
 * applies it, or the review sees the revoke. Only that rule is locked (the caller counts the
 * review on it), after the task's row, as every writer of a rule locks them.
 */
export async function ruleCovering(
  db: Queryable,
  task: Task,
  facts: ReviewFacts[],
): Promise<AllowRule | undefined> {
  const active = `status = 'active' AND (expires_at IS NULL OR expires_at > now())`;
  const r = await db.query(
    `SELECT * FROM signoff.allow_rules WHERE ${active} AND scope->>'workflow' = $1 ORDER BY id`,
    [task.workflow],
  );
  for (const rule of r.rows.map(ruleFromRow).filter((x) => covers(x.scope, task.id, facts))) {
    const locked = await db.query(
      `SELECT * FROM signoff.allow_rules WHERE id = $1 AND ${active} FOR NO KEY UPDATE`,
      [rule.id],
    );
    if (locked.rows[0]) return ruleFromRow(locked.rows[0]);
  }
  return undefined;
}

/**
 * Locks every active rule of `workflow`, in id order: a run that opens several reviews at once
 * takes the rules they may need in one order, so two such runs never wait on each other's.
 */
export async function lockRulesOf(db: Queryable, workflow: string): Promise<void> {
  await db.query(
    `SELECT id FROM signoff.allow_rules WHERE status = 'active' AND scope->>'workflow' = $1 ORDER BY id FOR NO KEY UPDATE`,
    [workflow],
  );
}

/** Counts one review the rule approved. */
export async function ruleApplied(db: Queryable, id: number): Promise<void> {
  await db.query('UPDATE signoff.allow_rules SET applied = applied + 1 WHERE id = $1', [id]);
}

export async function getRule(db: Queryable, id: number, forUpdate = false): Promise<AllowRule | undefined> {
  const r = await db.query(
    `SELECT * FROM signoff.allow_rules WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return r.rows[0] && ruleFromRow(r.rows[0]);
}

export async function listRules(db: Queryable, statuses: AllowRule['status'][]): Promise<AllowRule[]> {
  const r = await db.query(
    'SELECT * FROM signoff.allow_rules WHERE status = ANY($1) ORDER BY id DESC LIMIT 500',
    [statuses],
  );
  return r.rows.map(ruleFromRow);
}

/**
 * Writes a rule's change (`set`: columns and values), its event on the task it was proposed from
 * (its thread shows what became of it) and its audit entry, in one transaction.
 */
export function changeRule(
  db: Queryable,
  id: number,
  set: Record<string, unknown>,
  entry: RuleEntry,
): Promise<AllowRule> {
  return atomically(db, async (db) => {
    const columns = Object.keys(set);
    const r = await db.query(
      `UPDATE signoff.allow_rules SET ${columns.map((c, i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1 RETURNING *`,
      [id, ...Object.values(set)],
    );
    const rule = ruleFromRow(r.rows[0]);
    await recordRule(db, rule, entry);
    return rule;
  });
}

/** A new rule, proposed; with its event and audit entry. */
export function insertRule(
  db: Queryable,
  r: { scope: RuleScope; taskId: string; reviewId: string; proposedBy: string; signers?: Signers },
): Promise<AllowRule> {
  return atomically(db, async (db) => {
    const inserted = await db.query(
      `INSERT INTO signoff.allow_rules (scope, task_id, review_id, proposed_by) VALUES ($1, $2, $3, $4) RETURNING *`,
      [r.scope, r.taskId, r.reviewId, r.proposedBy],
    );
    const rule = ruleFromRow(inserted.rows[0]);
    await recordRule(db, rule, {
      actor: r.proposedBy,
      action: 'rule_propose',
      detail: { scope: r.scope },
      signers: r.signers,
    });
    return rule;
  });
}

/** Who signs rules off (the config file's `alwaysAllow`), as a rule's message says it. */
export type Signers = { reviewers: string[]; approvals: number };

/** A rule's change for the audit (and who signs it off, for its message). */
type RuleEntry = { actor: string; action: string; detail?: Record<string, unknown>; signers?: Signers };

async function recordRule(db: Queryable, rule: AllowRule, entry: RuleEntry) {
  await record(db, rule.taskId, eventKey.rule(rule.id, rule.status, rule.approvals.length), {
    type: 'rule_changed',
    rule,
    ...(entry.signers && {
      signers: { reviewers: entry.signers.reviewers, approvals: entry.signers.approvals },
    }),
  });
  await audit(db, {
    taskId: rule.taskId,
    reviewId: rule.reviewId,
    actor: entry.actor,
    action: entry.action,
    detail: { rule: rule.id, ...entry.detail },
  });
}

/** What a scope covers, in words; `channel` writes a channel as its surface shows one. */
export function scopeInWords(scope: RuleScope, channel: (id: string) => string = (id) => id): string {
  const where = `${scope.workflow}${scope.channel ? ` in ${channel(scope.channel)}` : ''}`;
  switch (scope.kind) {
    case 'task':
      return `this task's reviews at "${scope.checkpoint}"`;
    case 'workflow':
      return `every review of ${where} at "${scope.checkpoint}"`;
    case 'tool':
      return `every call of ${scope.tool} by ${where}`;
    case 'call': {
      const args = shownJson(scope.args ?? {});
      // Whole (no rule is proposed with longer ones; one proposed before that rule is cut at 2,000).
      return `calls of ${scope.tool} with exactly ${args.length > 2000 ? `${args.slice(0, 1999)}…` : args} by ${where}`;
    }
  }
}
