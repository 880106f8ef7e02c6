/** What OpenAI's Chat Completions API refuses before answering (the fake OpenAI server refuses it too). */
import type { ChatRequest } from './fake-openai.js';

type Schema = Record<string, unknown>;

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * What OpenAI's Chat Completions API refuses with a 400 before answering, or undefined: a missing
 * model, no messages, an unknown role, a tool result that answers no call of the assistant message
 * before it, a bad tool name, a json_schema format without a name or schema, and, in strict mode,
 * a schema whose objects do not list every property as required and forbid others.
 */
export function invalidRequest(request: ChatRequest): string | undefined {
  if (!request.model) return 'you must provide a model parameter';
  if (!Array.isArray(request.messages) || request.messages.length === 0)
    return "[] is too short - 'messages'";
  const open = new Set<string>();
  for (const [i, m] of request.messages.entries()) {
    if (!ROLES.has(m.role))
      return `Invalid value: '${m.role}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'. ('messages[${i}].role')`;
    const calls = (m as { tool_calls?: { id: string }[] }).tool_calls;
    if (m.role === 'assistant') {
      open.clear();
      for (const c of calls ?? []) open.add(c.id);
    } else if (m.role === 'tool') {
      if (!m.tool_call_id || !open.has(m.tool_call_id))
        return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. ('messages[${i}]')`;
    } else open.clear();
  }
  for (const t of request.tools ?? []) {
    if (!TOOL_NAME.test(t.function?.name ?? ''))
      return `Invalid 'tools[].function.name': '${t.function?.name}'.`;
  }
  const format = request.response_format;
  if (format?.type === 'json_schema') {
    const js = format.json_schema as { name?: string; schema?: Schema; strict?: boolean } | undefined;
    if (!js?.name || !js.schema) return "Missing required parameter: 'response_format.json_schema'.";
    if (js.strict) {
      const bad = strictProblem(js.schema, js.schema);
      if (bad) return `Invalid schema for response_format '${js.name}': ${bad}`;
    }
  }
  return undefined;
}

/** Structured Outputs' strict mode: every object lists all its properties as required and forbids others. */
function strictProblem(schema: Schema, root: Schema): string | undefined {
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (schema.type === 'object' || properties) {
    if (schema.additionalProperties !== false)
      return "'additionalProperties' is required to be supplied and to be false.";
    const required = new Set((schema.required as string[] | undefined) ?? []);
    for (const key of Object.keys(properties ?? {})) {
      if (!required.has(key))
        return `'required' is required to be supplied and to be an array including every key in properties. Missing '${key}'.`;
    }
  }
  const children = [
    ...Object.values(properties ?? {}),
    ...(schema.items ? [schema.items as Schema] : []),
    ...((schema.anyOf as Schema[] | undefined) ?? []),
    ...Object.values((schema.$defs ?? schema.definitions ?? {}) as Record<string, Schema>),
  ];
  for (const child of children) {
    const bad = strictProblem(child, root);
    if (bad) return bad;
  }
  return undefined;
}
