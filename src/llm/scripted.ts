/**
 * The offline model (the seeds' "parrot services"): deterministic answers computed from the
 * prompt, each clearly marked as offline, so every workflow runs end to end without a key.
 *
 * A plain call gets a short reply that names the agent and the task, says whether it answers
 * feedback (quoting it) and how many words of context it was given. Words, not messages: a
 * workflow may render the whole history into one message (the specialist does), where "read 1
 * message" would say it saw almost nothing. A structured call (a bound tool,
 * `withStructuredOutput`) gets an object built from the schema: choices (enums) follow the latest
 * human message, as routings and verdicts follow what a person said.
 */
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import {
  BaseChatModel,
  type BaseChatModelParams,
  type BindToolsInput,
} from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { z } from 'zod';
import { excerpt } from '../text.js';
import { LABEL } from './prompt-labels.js';

export const OFFLINE_MARK = '[offline model]';

// What the offline model reads back from prompts, built from the labels the workflows write.
const SUBJECT = new RegExp(`^(${LABEL.task}|${LABEL.goal}|${LABEL.topic}):\\s*`);
const LATEST_FEEDBACK = new RegExp(
  `(?:^|\\n)(?:${LABEL.feedback}|\\[[^\\]\\n]+\\] ${LABEL.humanFeedback}):\\s*([^\\n]*)\\s*$`,
);
const ANY_FEEDBACK = new RegExp(`(?:^|\\n)${LABEL.feedback}:\\s*([^\\n]+)`, 'g');
const EARLIER_QUERIES = new RegExp(`${LABEL.earlierQueries}:\\n((?:- .*(?:\\n|$))+)`);

export interface ScriptedModelOptions extends BaseChatModelParams {
  /** Who is speaking, for the reply text. */
  agent?: string;
  /** Simulated thinking time per call; aborted calls stop waiting at once. */
  delayMs?: number;
  /**
   * Answers to give instead of the computed ones (a scenario file's): text for plain calls and
   * objects for structured ones (a bound tool), each kind in order, its last one repeating.
   */
  script?: Script;
}

/** A scripted agent's answers and how many of each kind were given (shared with bound copies). */
export interface Script {
  texts: string[];
  objects: Record<string, unknown>[];
  used: { text: number; object: number };
}

export const scriptOf = (answers: (string | Record<string, unknown>)[]): Script => ({
  texts: answers.filter((a): a is string => typeof a === 'string'),
  objects: answers.filter((a): a is Record<string, unknown> => typeof a !== 'string'),
  used: { text: 0, object: 0 },
});

/** The script's next answer of a kind (the last repeats), or undefined when it has none. */
function nextScripted<K extends 'text' | 'object'>(
  script: Script | undefined,
  kind: K,
): (K extends 'text' ? string : Record<string, unknown>) | undefined {
  const list = (kind === 'text' ? script?.texts : script?.objects) as unknown[] | undefined;
  if (!script || !list?.length) return undefined;
  const answer = list[Math.min(script.used[kind], list.length - 1)];
  script.used[kind] += 1;
  return answer as never;
}

function text(message: BaseMessage): string {
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((part) => ('text' in part ? part.text : '')).join('');
}

export function scriptedReply(messages: BaseMessage[], agent: string): string {
  const humans = messages.filter((m) => m.getType() === 'human');
  const latest = humans.length ? text(humans[humans.length - 1] as BaseMessage) : '';
  const context = messages
    .filter((m) => m.getType() !== 'system')
    .reduce((n, m) => n + (text(m).match(/\S+/g)?.length ?? 0), 0);
  const task = humans.length ? plainTask(text(humans[0] as BaseMessage)) : '';
  const feedback = LATEST_FEEDBACK.exec(latest);
  const speaker = /^([A-Z][\w ]{0,40}):/.exec(latest);
  const clause = feedback
    ? `revised to address the feedback "${excerpt(feedback[1] ?? '', 80)}"`
    : humans.length > 1 && speaker
      ? `building on what ${speaker[1]} said`
      : 'a first draft';
  return `${OFFLINE_MARK} ${agent} on "${excerpt(task, 60)}": ${clause} (read ${context.toLocaleString('en-US')} word${context === 1 ? '' : 's'} of context).`;
}

/**
 * The task a prompt is about: its first line without a "Task:", "Goal:" or "Topic:" label, and, when that
 * line is an earlier offline answer (a goal the offline model restated), the task it quoted.
 */
function plainTask(firstHuman: string): string {
  const line = (firstHuman.replace(SUBJECT, '').split('\n')[0] ?? '').trim();
  const quoted = line.startsWith(OFFLINE_MARK) ? /for "([^"]+)"/.exec(line)?.[1] : undefined;
  return quoted ?? line;
}

/** The task (first human message) and the latest feedback in a prompt, if any. */
function taskAndFeedback(messages: BaseMessage[]): { task: string; feedback?: string } {
  const humans = messages.filter((m) => m.getType() === 'human').map(text);
  const task = plainTask(humans[0] ?? '');
  const all = humans.join('\n');
  const feedback = [...all.matchAll(ANY_FEEDBACK)].at(-1)?.[1];
  return { task, feedback };
}

/** Angles a search query takes, one per cycle, so that no query repeats an earlier one. */
const ANGLES = [
  'overview',
  'methods',
  'evaluation',
  'risks',
  'open problems',
  'case studies',
  'costs',
  'history',
];

/** How many earlier queries the prompt lists (lines "- …" after "Earlier queries:"). */
function earlierQueries(messages: BaseMessage[]): number {
  const prompt = messages.map(text).join('\n');
  const list = EARLIER_QUERIES.exec(prompt)?.[1] ?? '';
  return list.split('\n').filter((l) => l.startsWith('- ')).length;
}

/**
 * The option a person named: in the latest feedback (whole word, any case), else in the latest
 * human message (the task, or what another agent said), else the first option.
 */
function chosen(options: string[], messages: BaseMessage[]): string {
  const humans = messages.filter((m) => m.getType() === 'human').map(text);
  const latestFeedback = [...humans.join('\n').matchAll(ANY_FEEDBACK)].at(-1)?.[1];
  const named = (said: string | undefined) =>
    options.find((o) =>
      new RegExp(`\\b${o.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(
        said?.toLowerCase() ?? '',
      ),
    );
  return named(latestFeedback) ?? named(humans.at(-1)) ?? (options[0] as string);
}

/** The part of a JSON Schema the offline model reads: an object's properties. */
export interface JsonSchema {
  properties?: Record<string, { type?: string; enum?: unknown[] }>;
}

/** A tool's parameters as JSON Schema, whether given as JSON Schema or as a zod object. */
function jsonSchemaOf(schema: unknown): JsonSchema | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  if ('_zod' in schema) return z.toJSONSchema(schema as z.ZodType) as JsonSchema;
  return schema as JsonSchema;
}

/**
 * An object of the schema's shape: a field named `query` is the task plus an angle no earlier
 * query listed in the prompt took; strings name the agent, the field and the task (and the
 * latest feedback); an enum takes the option the latest human message names, else its first
 * (a routing or a verdict follows what the person said); string lists are numbered steps for the task,
 * with one that applies the feedback when there is feedback.
 */
export function scriptedObject(schema: JsonSchema, messages: BaseMessage[], agent: string): unknown {
  const { task, feedback } = taskAndFeedback(messages);
  const about = `"${excerpt(task, 60)}"`;
  const revised = feedback ? `, revised for "${excerpt(feedback, 80)}"` : '';
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    if (key === 'query')
      out[key] = `${excerpt(task, 60)} ${ANGLES[earlierQueries(messages) % ANGLES.length]}`;
    else if (field.enum?.length) out[key] = chosen(field.enum.map(String), messages);
    else if (field.type === 'array')
      out[key] = [
        `Work out what ${about} needs`,
        `Do the main work for ${about}`,
        ...(feedback ? [`Apply the feedback: "${excerpt(feedback, 80)}"`] : []),
        'Check the result and write it up',
      ];
    else if (field.type === 'number' || field.type === 'integer') out[key] = 1;
    else out[key] = `${OFFLINE_MARK} ${agent}: ${key} for ${about}${revised}.`;
  }
  return out;
}

export class ScriptedChatModel extends BaseChatModel {
  private calls = 0;
  private readonly agent: string;
  private readonly delayMs: number;
  private readonly script: Script | undefined;
  /** Tools bound by an agent (createAgent): the model calls the first one once, then answers. */
  private tools: { name: string; schema?: JsonSchema }[] = [];

  constructor(options: ScriptedModelOptions = {}) {
    super(options);
    this.agent = options.agent ?? 'Agent';
    this.delayMs = options.delayMs ?? 0;
    this.script = options.script;
  }

  _llmType(): string {
    return 'signoff-scripted';
  }

  /** Thinking time and abort, as for every call. */
  private async call(signal?: AbortSignal): Promise<void> {
    this.calls += 1;
    if (this.delayMs > 0) await sleep(this.delayMs, signal);
    signal?.throwIfAborted();
  }

  override bindTools(tools: BindToolsInput[]): ScriptedChatModel {
    // The callbacks and metadata go along: they are how the terminal knows who is thinking
    // (cli/thinking.ts), what counts its usage and whose words it streams, and a structured answer
    // (`withStructuredOutput`) is a call of the bound model.
    const bound = new ScriptedChatModel({
      agent: this.agent,
      delayMs: this.delayMs,
      script: this.script,
      callbacks: this.callbacks,
      metadata: this.metadata,
    });
    bound.tools = tools.map((t) => {
      const tool = t as {
        name?: string;
        schema?: unknown;
        function?: { name: string; parameters?: unknown };
      };
      return {
        name: tool.name ?? tool.function?.name ?? 'tool',
        schema: jsonSchemaOf(tool.function?.parameters ?? tool.schema),
      };
    });
    return bound;
  }

  async _generate(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    await this.call(options.signal);
    const tool = this.tools[0];
    const lastHuman = messages.findLastIndex((m) => m.getType() === 'human');
    const answered = messages.slice(lastHuman + 1).find((m) => m.getType() === 'tool');
    if (tool && !answered) {
      // The arguments are built from the tool's schema. `withStructuredOutput` comes this way too:
      // it binds the schema as a tool and reads the call's arguments, as with a real model.
      const args =
        nextScripted(this.script, 'object') ??
        (tool.schema ? scriptedObject(tool.schema, messages, this.agent) : {});
      // A chunk, as a streaming provider returns it (LangChain's structured-output parser wants one).
      const message = new AIMessageChunk({
        content: '',
        tool_calls: [
          {
            id: `call_${this.calls}`,
            name: tool.name,
            args: args as Record<string, unknown>,
            type: 'tool_call',
          },
        ],
      });
      return { generations: [{ text: '', message }] };
    }
    if (answered) {
      const reply = `${OFFLINE_MARK} ${this.agent}: ${tool?.name ?? 'the tool'} returned "${excerpt(text(answered), 120)}".`;
      return { generations: [{ text: reply, message: new AIMessage(reply) }] };
    }
    const reply = nextScripted(this.script, 'text') ?? scriptedReply(messages, this.agent);
    return { generations: [{ text: reply, message: new AIMessage(reply) }] };
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
