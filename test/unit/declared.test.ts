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

/** The error lines a config file gets, in order. */
function errorsOf(yaml: string): string[] {
  try {
    parseWorkflowConfig(yaml, 'team.yml');
    return [];
  } catch (error) {
    return (error as Error).message.split('\n');
  }
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
    expect(message.split('\n')).toEqual([
      'team.yml:7:26 workflows.notes.stages.0.agents.1: there is no agent "ghost" under agents; the agents are writer',
      'team.yml:8:9 workflows.notes.stages.0.onRevise: there is no stage "nowhere"; the stages are draft, again',
      'team.yml:10:9 workflows.notes.stages.1: onRevise and maxRevisions need a review or a verdict to revise from',
      "team.yml:14:7 workflows.notes.checkpoints.other_review: no stage has review: other_review; the stages' reviews are draft_review",
    ]);
  });

  it('a misspelt agent says which one it probably meant and lists the agents there are', () => {
    const yaml = `workflows:
  notes:
    agents: { writer: {}, editor: {} }
    stages:
      - id: draft
        agents: [writter]
      - id: check
        parallel: [editor, writer]
        verdict: editr
        review: check
`;
    expect(errorsOf(yaml)).toEqual([
      'team.yml:6:18 workflows.notes.stages.0.agents.0: there is no agent "writter" under agents (did you mean writer?); the agents are writer, editor',
      'team.yml:9:9 workflows.notes.stages.1.verdict: there is no agent "editr" under agents (did you mean editor?); the agents are writer, editor',
    ]);
  });

  it("a typo in a stage's review is reported at the review's own line, naming the checkpoint it meant", () => {
    const yaml = `workflows:
  notes:
    agents: { writer: {} }
    stages:
      - id: draft
        agents: [writer]
        review: final_reveiw
    checkpoints:
      final_review: { reviewers: [anyone] }
`;
    expect(errorsOf(yaml)).toEqual([
      "team.yml:7:9 workflows.notes.stages.0.review: review: final_reveiw has no settings under checkpoints, and checkpoints.final_review is no stage's review (did you mean final_review?)",
    ]);
    // A checkpoint misspelt beside a stage's review that has its own settings is the typo: reported there.
    const misspeltCheckpoint = `${yaml}      final_reveiw: { reviewers: [anyone] }\n`.replace(
      'review: final_reveiw',
      'review: final_review',
    );
    expect(errorsOf(misspeltCheckpoint)).toEqual([
      "team.yml:10:7 workflows.notes.checkpoints.final_reveiw: no stage has review: final_reveiw (did you mean final_review?); the stages' reviews are final_review",
    ]);
  });

  it('refuses a workflow with both a module and stages', () => {
    const both =
      'workflows:\n  notes:\n    module: ./x.ts\n    agents: { writer: {} }\n    stages:\n      - id: draft\n        agents: [writer]\n';
    expect(() => parseWorkflowConfig(both, 'team.yml')).toThrow(
      'team.yml:5:5 workflows.notes.stages: a workflow has either a module or stages, not both',
    );
  });
});
