/**
 * A graph for a LangGraph server that a team steers from Slack through signoff: it drafts a
 * release note, asks for a review in signoff's own shape (Approve, Revise with feedback, Reject),
 * redrafts with the feedback as often as asked, then asks to send the announcement as a tool call
 * (LangChain's HITLRequest, as humanInTheLoopMiddleware asks it: Approve, Edit, Reject). No model:
 * it runs the same on any server, with no keys.
 *
 * Serve it (from this folder): npx @langchain/langgraph-cli dev   (langgraph.json names it `release`)
 * Use it from signoff's config file:
 *   workflows:
 *     release:
 *       remote:
 *         url: http://localhost:2024
 *         graph: release
 */
import { AIMessage } from '@langchain/core/messages';
import { Annotation, END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  /** The release note as last drafted. */
  note: Annotation<string>({ reducer: (_, b) => b, default: () => '' }),
  /** The reviewer's feedback on the last draft, if they asked for a revision. */
  feedback: Annotation<string | undefined>({ reducer: (_, b) => b, default: () => undefined }),
  /** Drafts written so far. */
  round: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
  /** What the review decided: where the graph goes next. */
  verdict: Annotation<'approve' | 'revise' | 'reject' | undefined>({
    reducer: (_, b) => b,
    default: () => undefined,
  }),
});
type S = typeof State.State;

/** signoff's answer to its own review shape (the parts this graph reads). */
interface Decision {
  action: 'approve' | 'revise' | 'reject' | 'edit';
  feedback?: string;
  by?: string;
}

/** The task, as signoff sends it: the first human message. */
const taskOf = (state: S) => {
  const first = state.messages.find((m) => m.getType() === 'human');
  return typeof first?.content === 'string' ? first.content : 'the release';
};

function draft(state: S): Partial<S> {
  const round = state.round + 1;
  const text = state.feedback
    ? `Release note (draft ${round}) for ${taskOf(state)}. Revised as asked: ${state.feedback}.`
    : `Release note (draft ${round}) for ${taskOf(state)}: faster starts, fewer clicks.`;
  return { note: text, round, feedback: undefined, messages: [new AIMessage(text)] };
}

function review(state: S): Partial<S> {
  const decision = interrupt({
    kind: 'review',
    title: 'Publish this release note?',
    body: state.note,
    actions: ['approve', 'revise', 'reject'],
    round: state.round,
  }) as Decision;
  if (decision.action === 'revise') return { verdict: 'revise', feedback: decision.feedback ?? '' };
  if (decision.action === 'reject')
    return { verdict: 'reject', messages: [new AIMessage('Not published: the note was rejected.')] };
  return { verdict: 'approve' };
}

/** The announcement as a tool call: reviewed as humanInTheLoopMiddleware asks (HITLRequest). */
function announce(state: S): Partial<S> {
  const answer = interrupt({
    actionRequests: [
      {
        name: 'send_announcement',
        args: { channel: '#releases', text: state.note },
        description: 'The release note goes out to #releases',
      },
    ],
    reviewConfigs: [{ actionName: 'send_announcement', allowedDecisions: ['approve', 'edit', 'reject'] }],
  }) as {
    decisions: { type: 'approve' | 'edit' | 'reject'; editedAction?: { args: { channel: string } } }[];
  };
  const decision = answer.decisions[0];
  if (decision?.type === 'reject')
    return { messages: [new AIMessage('Not announced: the announcement was rejected.')] };
  const channel =
    decision?.type === 'edit' ? (decision.editedAction?.args.channel ?? '#releases') : '#releases';
  return { messages: [new AIMessage(`Published and announced in ${channel}.`)] };
}

export const graph = new StateGraph(State)
  .addNode('draft', draft)
  .addNode('review', review)
  .addNode('announce', announce)
  .addEdge(START, 'draft')
  .addEdge('draft', 'review')
  .addConditionalEdges('review', (s): 'draft' | 'announce' | typeof END =>
    s.verdict === 'revise' ? 'draft' : s.verdict === 'approve' ? 'announce' : END,
  )
  .addEdge('announce', END)
  .compile();
