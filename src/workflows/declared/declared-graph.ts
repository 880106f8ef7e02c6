/**
 * The builder for declared workflows (seed 004's "configuration over code"): the config file's
 * stages become a LangGraph graph, checkpointed and run like the built-in ones. A stage's agents
 * are nodes one after the other, or side by side in one graph step (`parallel`); a stage with a
 * review ends in a review node; approve goes to the next stage, revise back to `onRevise` with the
 * feedback in the history, reject ends it rejected; `maxRevisions` ends it as stopped.
 */
import type { BaseMessage } from '@langchain/core/messages';
import { Annotation, END, type LangGraphRunnableConfig, START, StateGraph } from '@langchain/langgraph';
import { z } from 'zod';
import { LABEL, labelled } from '../../llm/prompt-labels.js';
import { askStructured } from '../../llm/structured.js';
import { agentFor } from '../shared/agents.js';
import { last } from '../shared/annotations.js';
import { goalOf } from '../shared/goal.js';
import { contentOf, type Turn, toChat } from '../shared/messages.js';
import { reviewAsker } from '../shared/review.js';
import { say } from '../shared/say.js';
import type { WorkflowDefinition, WorkflowDeps } from '../shared/types.js';
import type { Stage } from './stages.js';

export interface Entry {
  stage: string;
  /** The agent's name, or who gave the feedback. */
  by: string;
  text: string;
  feedback?: boolean;
}

export const DeclaredState = Annotation.Root({
  /** The task as the person wrote it. */
  task: last(() => ''),
  /** Everything the agents said and every piece of feedback, in order, tagged with its stage. */
  history: Annotation<Entry[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  /** Revisions asked so far, per stage id. */
  revisions: Annotation<Record<string, number>>({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) }),
  /** Where the last review or verdict sent the work: the next stage, back to a stage, or the end. */
  next: last<string | null>(() => null),
  /** How it ended. */
  outcome: last<'done' | 'rejected' | 'stopped' | null>(() => null),
  /** The stage whose revision limit ended it. */
  stoppedAt: last<string | null>(() => null),
});
export type DeclaredStateType = typeof DeclaredState.State;

const verdictSchema = z.object({
  verdict: z.enum(['revise', 'approve']).describe('approve only when the work needs no further change'),
});

/** Node names: `<stage>.<agent>`, `<stage>.verdict`, `<stage>.review`. */
export const agentNode = (stage: string, agent: string) => `${stage}.${agent}`;
const stageStart = (s: Stage) =>
  s.parallel ? `${s.id}.start` : agentNode(s.id, (s.agents as string[])[0] as string);

/**
 * The conversation as `speaker` sees it: the task, then every entry as a message of its own, its
 * own earlier answers as the assistant's (as the pair workflow does), never packed into one text.
 */
function conversation(system: string, task: string, history: Entry[], speaker: string): BaseMessage[] {
  const turns: Turn[] = [
    { role: 'user', author: 'requester', content: labelled(LABEL.task, task) },
    ...history.map(
      (h): Turn =>
        h.feedback
          ? { role: 'human', author: h.by, content: labelled(LABEL.feedback, h.text) }
          : { role: 'agent', author: h.by, content: h.text },
    ),
  ];
  return toChat(system, turns, speaker);
}

export function buildDeclaredGraph(deps: WorkflowDeps) {
  const stages = deps.settings.stages ?? [];
  const askReview = reviewAsker(deps);
  const make = (key: string) =>
    agentFor(deps, key, { name: key, prompt: `You are ${key}. Do your part of the task.` });
  // Made when the graph is built, as every workflow's agents are (which is how they are named).
  const agents = new Map(Object.keys(deps.settings.agents).map((key) => [key, make(key)]));
  const agent = (key: string) => agents.get(key) ?? make(key);

  /** A stage's name as the plan reads it: `first_draft` reads "first draft". */
  const words = (stage: Stage) => stage.id.replace(/[_\-.]+/g, ' ');
  const titled = (title: string) => ({ metadata: { title } });

  const speak =
    (stage: Stage, key: string) => async (s: DeclaredStateType, config: LangGraphRunnableConfig) => {
      const a = agent(key);
      const answer = await a.model.invoke(conversation(a.prompt, s.task, s.history, a.name), {
        signal: config.signal,
      });
      const text = contentOf(answer);
      say(config, { agent: a.name, text });
      return { history: [{ stage: stage.id, by: a.name, text }] };
    };

  /** After a stage's work: where it goes (a verdict and a review may send it back). */
  const decideNext = (stage: Stage, index: number) => {
    const following = stages[index + 1];
    const onward = following ? stageStart(following) : END;
    const back = (s: DeclaredStateType, by: string, feedback: string) => {
      const used = (s.revisions[stage.id] ?? 0) + 1;
      if (stage.maxRevisions !== undefined && used >= stage.maxRevisions)
        return {
          outcome: 'stopped' as const,
          stoppedAt: stage.id,
          next: END,
          revisions: { [stage.id]: used },
        };
      const target = stages.find((x) => x.id === (stage.onRevise ?? stage.id)) as Stage;
      return {
        next: stageStart(target),
        revisions: { [stage.id]: used },
        history: [{ stage: stage.id, by, text: feedback, feedback: true }],
      };
    };
    return { onward, back };
  };

  const graph = new StateGraph(DeclaredState);
  const edges: [string, string][] = [];
  const routes: { from: string; to: string[] }[] = [];
  stages.forEach((stage, index) => {
    const { onward, back } = decideNext(stage, index);
    const targets = [...new Set([onward, END, ...stages.map(stageStart)])];
    // The stage's work.
    let last: string[];
    if (stage.parallel) {
      graph.addNode(`${stage.id}.start`, () => ({}), titled(`The ${words(stage)} begins`));
      for (const key of stage.parallel) {
        graph.addNode(
          agentNode(stage.id, key),
          speak(stage, key),
          titled(`${agent(key).name}: ${words(stage)}`),
        );
        edges.push([`${stage.id}.start`, agentNode(stage.id, key)]);
      }
      last = stage.parallel.map((key) => agentNode(stage.id, key));
    } else {
      const keys = stage.agents as string[];
      keys.forEach((key, i) => {
        graph.addNode(
          agentNode(stage.id, key),
          speak(stage, key),
          titled(`${agent(key).name}: ${words(stage)}`),
        );
        if (i > 0) edges.push([agentNode(stage.id, keys[i - 1] as string), agentNode(stage.id, key)]);
      });
      last = [agentNode(stage.id, keys.at(-1) as string)];
    }
    // Then a verdict, a review, both, or straight on.
    const gate = `${stage.id}.${stage.verdict ? 'verdict' : 'review'}`;
    if (stage.verdict) {
      const judge = stage.verdict;
      graph.addNode(
        `${stage.id}.verdict`,
        async (s: DeclaredStateType, config: LangGraphRunnableConfig) => {
          const a = agent(judge);
          const { verdict } = await askStructured(
            a.model,
            verdictSchema,
            conversation(a.prompt, s.task, s.history, a.name),
            config.signal,
          );
          say(config, {
            agent: a.name,
            text: verdict === 'approve' ? 'Approved.' : 'This needs another revision.',
          });
          if (verdict === 'approve') return { next: onward };
          return stage.review
            ? { next: `${stage.id}.review` }
            : back(s, a.name, `${a.name} asked for a revision.`);
        },
        titled(`${agent(judge).name} judges the ${words(stage)}`),
      );
    }
    if (stage.review) {
      const kind = stage.review;
      graph.addNode(
        `${stage.id}.review`,
        (s: DeclaredStateType) => {
          const work = s.history.filter((h) => h.stage === stage.id && !h.feedback).slice(-last.length);
          const round = (s.revisions[stage.id] ?? 0) + 1;
          const d = askReview({
            kind,
            title: `Review the ${stage.id.replace(/_/g, ' ')} (round ${round})`,
            body: work.map((w) => `**${w.by}**\n${w.text}`).join('\n\n'),
            round,
          });
          if (d.action === 'approve') return { next: onward };
          if (d.action === 'reject') return { outcome: 'rejected' as const, next: END };
          return back(s, d.by, d.feedback?.trim() ?? '');
        },
        titled(`Your review of the ${words(stage)}`),
      );
      if (stage.verdict) routes.push({ from: `${stage.id}.verdict`, to: [`${stage.id}.review`, ...targets] });
      routes.push({ from: `${stage.id}.review`, to: targets });
    } else if (stage.verdict) routes.push({ from: `${stage.id}.verdict`, to: targets });
    const after = stage.review || stage.verdict ? gate : onward;
    for (const from of last) edges.push([from, after]);
  });
  const first = stages[0] as Stage;
  const built = graph as unknown as StateGraph<
    typeof DeclaredState.spec,
    DeclaredStateType,
    Partial<DeclaredStateType>,
    string
  >;
  built.addEdge(START, stageStart(first));
  // Several agents of a parallel stage join into what follows them: one edge from all of them.
  const joined = new Map<string, string[]>();
  for (const [from, to] of edges) joined.set(to, [...(joined.get(to) ?? []), from]);
  for (const [to, froms] of joined) {
    const parallelJoin = froms.length > 1;
    if (parallelJoin) built.addEdge(froms, to);
    else built.addEdge(froms[0] as string, to);
  }
  for (const { from, to } of routes)
    built.addConditionalEdges(from, (s: DeclaredStateType) => s.next ?? END, to);
  return built.compile({ checkpointer: deps.checkpointer });
}

/** A declared workflow named `name`, run by the builder from its settings. */
export function declaredWorkflow(name: string, description?: string): WorkflowDefinition {
  return {
    name,
    description: description ?? `Declared in the config file: ${name}.`,
    build: buildDeclaredGraph,
    durability: 'sync',
    checkpoints: (settings) => (settings.stages ?? []).flatMap((s) => (s.review ? [s.review] : [])),
    input: (task) => ({ task: goalOf(task) }),
    outcome: (values) => {
      if (values.outcome === 'rejected') return { status: 'rejected', reason: 'rejected at review' };
      if (values.outcome === 'stopped')
        return {
          status: 'stopped',
          reason: `revision limit of the ${values.stoppedAt} stage reached`,
        };
      return { status: 'done' };
    },
  };
}
