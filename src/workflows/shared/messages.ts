import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';

/** One entry of a workflow's transcript: who said what. Plain data, so checkpoints stay small. */
export interface Turn {
  role: 'user' | 'agent' | 'human';
  author: string;
  content: string;
}

/** The transcript as chat messages for `speaker`: its own turns are the assistant's, others are input. */
export function toChat(system: string, turns: Turn[], speaker: string): BaseMessage[] {
  return [
    new SystemMessage(system),
    ...turns.map((t) =>
      t.role === 'agent' && t.author === speaker
        ? new AIMessage(t.content)
        : new HumanMessage({ content: t.role === 'agent' ? `${t.author}: ${t.content}` : t.content }),
    ),
  ];
}

export function contentOf(message: BaseMessage): string {
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((part) => ('text' in part ? part.text : '')).join('');
}
