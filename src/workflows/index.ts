import { askWorkflow } from './ask/ask-graph.js';
import { goalPlanWorkflow } from './goal-plan/goal-plan-graph.js';
import { pairWorkflow } from './pair/pair-graph.js';
import { proposalWorkflow } from './proposal/proposal-graph.js';
import type { WorkflowDefinition } from './shared/types.js';
import { specialistWorkflow } from './specialist/specialist-graph.js';

/** The built-in workflows, by name. */
export const BUILT_IN_WORKFLOWS: readonly WorkflowDefinition[] = [
  pairWorkflow,
  specialistWorkflow,
  goalPlanWorkflow,
  proposalWorkflow,
  askWorkflow,
];
