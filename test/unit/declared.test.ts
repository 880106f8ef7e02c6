/** Declared workflows: the graph built from the YAML has the nodes and edges it says; bad references are file:line errors. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { parseWorkflowConfig, workflowSettings } from '../../src/config/workflows.js';
import { ScriptedChatModel } from '../../src/llm/scripted.js';
import { buildDeclaredGraph } from '../../src/workflows/declared/declared-graph.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'declared', 'release-notes.yml');

function graphOf(yaml: string, name: string) {
  const settings = workflowSettings(parseWorkflowConfig(yaml, 'team.yml'), name);
  const graph = buildDeclaredGraph({
    modelFor: ({ name: agent }) => new ScriptedChatModel({ agent }),
    settings,
    checkpointer: new MemorySaver(),
    documents: { search: async () => [], count: async () => 0 },
  });
  const drawn = graph.getGraph();
  return {
    nodes: Object.keys(drawn.nodes).sort(),
    edges: drawn.edges.map((e) => `${e.source}->${e.target}${e.conditional ? '?' : ''}`).sort(),
  };
}

describe('declared workflows', () => {
  it('the example builds the nodes and edges its stages say: in order, in parallel, reviews and where revise goes', () => {
    const { nodes, edges } = graphOf(readFileSync(EXAMPLE, 'utf8'), 'release-notes');
    expect(nodes).toEqual(
      [
        '__end__',
        '__start__',
        'checks.legal',
        'checks.product',
        'checks.start',
        'draft.review',
        'draft.writer',
        'final.editor',
        'final.review',
      ].sort(),
    );
    expect(edges).toEqual(
      expect.arrayContaining([
        '__start__->draft.writer',
        'draft.writer->draft.review',
        'draft.review->checks.start?',
        'checks.start->checks.product',
        'checks.start->checks.legal',
        'checks.product->final.editor',
        'checks.legal->final.editor',
        'final.editor->final.review',
        'final.review->draft.writer?',
        'final.review->__end__?',
      ]),
    );
  });

  it('names the line of an unknown agent, an unknown stage, an unreviewed checkpoint and a loop with no review', () => {
    const bad = `workflows:
  notes:
    agents:
      writer: { name: Writer }
    stages:
      - id: draft
        agents: [writer, ghost]
        onRevise: nowhere
        review: draft_review
      - id: again
        agents: [writer]
        maxRevisions: 2
    checkpoints:
      other_review: { reviewers: [anyone] }
`;
    let message = '';
    try {
      parseWorkflowConfig(bad, 'team.yml');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(
      'team.yml:7:26 workflows.notes.stages.0.agents.1: there is no agent "ghost" under agents',
    );
    expect(message).toContain('team.yml:8:9 workflows.notes.stages.0.onRevise: there is no stage "nowhere"');
    expect(message).toContain(
      'workflows.notes.stages.1: onRevise and maxRevisions need a review or a verdict',
    );
    expect(message).toContain(
      'team.yml:14:7 workflows.notes.checkpoints.other_review: no stage has review: other_review',
    );
  });

  it('refuses a workflow with both a module and stages', () => {
    const both =
      'workflows:\n  notes:\n    module: ./x.ts\n    agents: { writer: {} }\n    stages:\n      - id: draft\n        agents: [writer]\n';
    expect(() => parseWorkflowConfig(both, 'team.yml')).toThrow(
      'team.yml:5:5 workflows.notes.stages: a workflow has either a module or stages, not both',
    );
  });
});
