/**
 * "Approve and always allow…": a reviewer approves a review and proposes a rule in one
 * transaction; the people the config file's `alwaysAllow` names sign the rule off (N of M, a
 * person counted once, the proposer not unless allowed) or refuse it; anyone who may sign rules
 * off, or its proposer, revokes it. Each change is one transaction on the rule's locked row, with
 * its event on the task it came from and its audit entry. A rule does nothing until signed off.
 */
import type pg from 'pg';
import type { AlwaysAllow, WorkflowsConfig } from '../config/workflows.js';
import { inTransaction, type Queryable } from '../db/queryable.js';
import { SignoffError } from '../errors.js';
import { changeRule, getRule, insertRule, listRules, scopesFor } from './allow-rules.js';
import type { Decided, DecideInput, RuleControls } from './api.js';
import { askGroups, groupsToAsk, rightRefused } from './authorize.js';
import type { Also } from './decisions.js';
import type { Delivery } from './delivery.js';
import { addApproval } from './sign-off-rules.js';
import { audit, getTask } from './task-rows.js';
import type { Actor, AllowRule, Clock, GroupDirectory, Surface, Task } from './types.js';

export interface RuleDeps {
  pool: pg.Pool;
  config: WorkflowsConfig;
  clock: Clock;
  delivery: Delivery;
  directories: Partial<Record<Surface, GroupDirectory>>;
  decide(input: DecideInput, automatic?: string, also?: Also): Promise<Decided>;
}

/** Who signs rules off where the config file names nobody (rules still standing may be revoked). */
const NOBODY = { reviewers: [] as string[], approvals: 1, allowSelfApproval: false, allowExternal: false };

const OFF =
  'Always allow is not set up here: the config file sets no `alwaysAllow` (who signs rules off). A review can still be approved on its own.';

export function createRuleControls(deps: RuleDeps): RuleControls {
  const { pool } = deps;
  const signers = (): AlwaysAllow => {
    if (!deps.config.alwaysAllow) throw new SignoffError('rules_off', OFF);
    return deps.config.alwaysAllow;
  };

  /** The rule and the task it came from; the actor with the groups their right hinges on, asked before any lock. */
  /**
   * The rule, the task it came from (with its proposer as the requester, for the rights), and the
   * actor with the groups their right hinges on, asked before any lock. `settings`: who signs
   * rules off; for a revoke, none may be named any more (its proposer or the operator still ends it).
   */
  async function prepare(id: number, actor: Actor, revoking = false) {
    const settings = revoking ? (deps.config.alwaysAllow ?? { ...NOBODY }) : signers();
    const rule = await getRule(pool, id);
    const task = rule && (await getTask(pool, rule.taskId));
    if (!rule || !task) throw new SignoffError('unknown_rule', `There is no rule #${id}.`);
    const as = { ...task, requester: rule.proposedBy };
    const groups = groupsToAsk(settings, as, actor);
    return { settings, as, actor: await askGroups(deps.directories[task.surface], actor, groups, task) };
  }

  /** Whether the actor may sign rules off (or revoke one): a sentence when not. */
  function refused(settings: AlwaysAllow, as: Task, actor: Actor, action: 'approve' | 'reject') {
    // Not a signer at all (or not known to be one just now) first; then a proposer's own approval.
    const outside = rightRefused(settings, as, actor, 'reject');
    if (outside)
      return new SignoffError(
        outside.code,
        outside.message.replace(
          'you are not a reviewer for this step',
          'you are not one of the people who sign off rules',
        ),
      );
    if (!rightRefused(settings, as, actor, action)) return undefined;
    return new SignoffError(
      'not_allowed',
      'Sorry, you proposed this rule, so someone else has to approve it.',
    );
  }

  /** Locks the rule, checks it is still open, and applies `change` to it. */
  async function onOpenRule(
    id: number,
    change: (rule: AllowRule, db: Queryable) => Promise<AllowRule>,
  ): Promise<AllowRule> {
    const changed = await inTransaction(pool, async (db) => {
      // The task's row first, then the rule's: the order in which a review opening locks them.
      const taskId = (await getRule(db, id))?.taskId;
      if (taskId) await getTask(db, taskId, true);
      const rule = await getRule(db, id, true);
      if (!rule) throw new SignoffError('unknown_rule', `There is no rule #${id}.`);
      return change(rule, db);
    });
    void deps.delivery.kick({
      id: changed.taskId,
      surface: (await getTask(pool, changed.taskId))?.surface ?? 'cli',
    });
    return changed;
  }

  /** Runs a rule's command; a refusal is in the audit (who tried what on which rule, and why) before it is thrown. */
  async function audited<T>(id: number, actor: Actor, action: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof SignoffError && error.code !== 'database_unavailable')
        await audit(pool, {
          // With the task it came from, so that `signoff audit <task>` lists the refusals too.
          taskId: (await getRule(pool, id).catch(() => undefined))?.taskId,
          actor: actor.id,
          action: `refused:${action}`,
          detail: { rule: id, code: error.code, message: error.message },
        }).catch(() => undefined);
      throw error;
    }
  }

  const closedRule = (rule: AllowRule) =>
    new SignoffError(
      'rule_closed',
      `Rule #${rule.id} is ${rule.status === 'active' ? 'signed off already' : rule.status}.`,
    );

  return {
    signers: () => deps.config.alwaysAllow,
    scopes: (review, task) => (deps.config.alwaysAllow ? scopesFor(task, review) : []),

    async propose(input) {
      signers();
      let proposed: AllowRule | undefined;
      const notOffered = `This review cannot be always allowed as "${input.scope}"; nothing was approved.`;
      const decided = await deps.decide(
        { ...input, action: 'approve' },
        undefined,
        async (db, review, task) => {
          const scope = scopesFor(task, review).find((s) => s.kind === input.scope);
          if (!scope) {
            // Undone with the approval; said in the audit all the same, as every refusal is.
            await audit(pool, {
              taskId: task.id,
              reviewId: review.id,
              actor: input.actor.id,
              action: 'refused:rule_propose',
              detail: { code: 'rules_off', message: notOffered, scope: input.scope },
            }).catch(() => undefined);
            throw new SignoffError('rules_off', notOffered);
          }
          proposed = await insertRule(db, {
            scope,
            taskId: task.id,
            reviewId: review.id,
            proposedBy: input.actor.id,
            signers: deps.config.alwaysAllow,
          });
        },
      );
      return { ...decided, rule: proposed as AllowRule };
    },

    decide: (id, actor, action) =>
      audited(id, actor, `rule_${action}`, async () => {
        const { settings, as, actor: who } = await prepare(id, actor);
        const denied = refused(settings, as, who, action);
        if (denied) throw denied;
        return onOpenRule(id, async (rule, db) => {
          if (rule.status !== 'proposed') throw closedRule(rule);
          const at = deps.clock.now();
          if (action === 'reject')
            return changeRule(
              db,
              id,
              { status: 'refused', decided_by: who.id, decided_at: at },
              {
                actor: who.id,
                action: 'rule_reject',
                signers: settings,
              },
            );
          const step = addApproval(
            { approvals: rule.approvals, settings },
            { by: who.id, at: at.toISOString(), contentHash: '' },
          );
          if (step.kind === 'counted_already')
            throw new SignoffError(
              'counted_already',
              `You have approved rule #${id} already. It has ${step.count} of ${step.needed} approvals; the rest must come from others.`,
            );
          const approvals = JSON.stringify(step.approvals);
          if (step.kind === 'counted')
            return changeRule(
              db,
              id,
              { approvals },
              {
                actor: who.id,
                action: 'rule_approve',
                detail: { counted: step.approvals.length, needed: step.needed },
                signers: settings,
              },
            );
          const expires = settings.expiresAfter
            ? new Date(at.getTime() + settings.expiresAfter * 1000)
            : null;
          return changeRule(
            db,
            id,
            { approvals, status: 'active', decided_by: who.id, decided_at: at, expires_at: expires },
            {
              actor: who.id,
              action: 'rule_approve',
              detail: { approvals: step.approvals.map(({ by, at }) => ({ by, at })) },
              signers: settings,
            },
          );
        });
      }),

    revoke: (id, actor) =>
      audited(id, actor, 'rule_revoke', async () => {
        const { settings, as, actor: who } = await prepare(id, actor, true);
        const isProposer = who.id === as.requester;
        // The terminal's operator steers anything here, a rule too (as they cancel any task).
        const denied = isProposer || who.operator ? undefined : refused(settings, as, who, 'reject');
        if (denied) throw denied;
        return onOpenRule(id, async (rule, db) => {
          if (rule.status === 'refused' || rule.status === 'revoked') throw closedRule(rule);
          return changeRule(
            db,
            id,
            { status: 'revoked', revoked_by: who.id, revoked_at: deps.clock.now() },
            {
              actor: who.id,
              action: 'rule_revoke',
              signers: settings,
            },
          );
        });
      }),

    list: (statuses = ['proposed', 'active']) => listRules(pool, statuses),
  };
}
