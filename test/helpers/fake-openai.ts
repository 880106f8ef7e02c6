/**
 * A local OpenAI-compatible chat server (POST /v1/chat/completions, plain or streamed as SSE), so
 * that the real `ChatOpenAI` can be run against it. It answers:
 * - `response_format: {type: 'json_schema'}` (LangChain's `withStructuredOutput` default) with a
 *   minimal valid instance of the schema, as JSON text;
 * - `tools` with a call of the named tool (or the first, unless the last message is a tool's
 *   result or `tool_choice` is 'none'), its arguments a minimal instance of its parameters;
 * - anything else with a short sentence.
 * Streamed, a plain answer comes a word at a time, `tokenDelayMs` apart (as a model writes it).
 * Faults on demand, answered as OpenAI answers them (`{error: {message, type, code}}`): 400, 401
 * (with the masked key OpenAI quotes), 429 with Retry-After, 500, 503, and slow answers.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { invalidRequest } from './openai-requests.js';

type Schema = Record<string, unknown>;

export interface ModelFault {
  /** HTTP status to answer (400, 401, 429, 500, 503); absent means answer normally, after `delayMs`. */
  status?: 400 | 401 | 429 | 500 | 503;
  /** Seconds, sent as Retry-After on a 429. */
  retryAfter?: number;
  /** Waits this long before answering (a slow model; also before an error). */
  delayMs?: number;
  /**
   * Answers this object instead of a valid instance of the requested schema (as the tool call's
   * arguments, or as the JSON text): a server that does not hold its model to the schema.
   */
  answer?: object;
  /**
   * Sends the headers and the first byte of a 200, then one more byte every `trickleMs`, never
   * finishing: a server (or a proxy) that hangs after the headers.
   */
  trickleMs?: number;
  /** Answers normally, its JSON padded with whitespace to this many bytes: a body too big to hold. */
  padToBytes?: number;
  /** Streamed: this many words of the answer, then the connection drops (a server dying mid-answer). */
  cutAfterTokens?: number;
  /** Streamed: the words this far apart, for this call (else the server's `tokenDelayMs`). */
  tokenDelayMs?: number;
}

export interface ModelCall {
  at: number;
  model: string;
  stream: boolean;
  /** The client closed the connection before the answer (an aborted call): nothing was sent. */
  hungUp?: boolean;
  /** What was answered: 'content', 'json', 'tool', 'trickle', or the error status. */
  answered: string | number;
  /** Streamed: how many pieces of its content were sent. */
  tokensSent?: number;
  /** Streamed: when its first piece of content was sent (ms since the epoch). */
  firstTokenAt?: number;
}

export interface FakeOpenAIOptions {
  /** Chooses among enum values and picks nothing else: pass a seeded one for reproducible runs. */
  random?: () => number;
  /** The text of a plain answer; by default a short sentence naming the call. */
  reply?: (request: ChatRequest, n: number) => string;
  /** Streamed answers come a word at a time, this far apart (0: all at once, the default). */
  tokenDelayMs?: number;
}

export interface ChatRequest {
  model: string;
  messages: { role: string; content?: unknown; tool_call_id?: string }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: { type: string; function: { name: string; parameters?: Schema } }[];
  tool_choice?: 'none' | 'auto' | 'required' | { type: string; function?: { name: string } };
  response_format?: { type: string; json_schema?: { name?: string; schema?: Schema } };
}

const ERRORS: Record<number, { message: string; type: string; code: string | null }> = {
  // What providers say carries what people must not see: a masked key, a link, an internal host.
  400: {
    message: 'Invalid request: upstream gpt-gateway.corp.internal:8443 rejected the payload (trace 7f3a9c).',
    type: 'invalid_request_error',
    code: null,
  },
  401: {
    message:
      'Incorrect API key provided: sk-proj-****************************abcd. You can find your API key at https://platform.openai.com/account/api-keys.',
    type: 'invalid_request_error',
    code: 'invalid_api_key',
  },
  429: {
    message: 'Rate limit reached for requests. Please try again in 1s.',
    type: 'requests',
    code: 'rate_limit_exceeded',
  },
  500: {
    message: 'The server had an error while processing your request. Sorry about that!',
    type: 'server_error',
    code: null,
  },
  503: {
    message: 'The engine is currently overloaded, please try again later.',
    type: 'server_error',
    code: 'service_unavailable',
  },
};

/** A minimal instance of a JSON Schema: required properties only, one item, the shortest valid text. */
export function minimalInstance(schema: Schema, random: () => number = Math.random, root = schema): unknown {
  const ref = schema.$ref as string | undefined;
  if (ref?.startsWith('#/')) {
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], root);
    return minimalInstance((target ?? {}) as Schema, random, root);
  }
  if ('const' in schema) return schema.const;
  const choices = schema.enum as unknown[] | undefined;
  if (choices?.length) return choices[Math.floor(random() * choices.length)];
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives?.length) {
    const notNull = alternatives.find((a) => a.type !== 'null') ?? alternatives[0];
    return minimalInstance(notNull as Schema, random, root);
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...schema.allOf.map((s) => minimalInstance(s as Schema, random, root)));
  }
  const type = Array.isArray(schema.type)
    ? ((schema.type as string[]).find((t) => t !== 'null') ?? 'null')
    : (schema.type as string | undefined);
  switch (type ?? (schema.properties ? 'object' : schema.items ? 'array' : 'string')) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required as string[] | undefined) ?? [];
      return Object.fromEntries(required.map((k) => [k, minimalInstance(properties[k] ?? {}, random, root)]));
    }
    case 'array': {
      const items = (schema.items ?? {}) as Schema;
      const n = Math.max(1, Number(schema.minItems ?? 1));
      return Array.from({ length: n }, () => minimalInstance(items, random, root));
    }
    case 'integer':
    case 'number':
      return Math.max(Number(schema.minimum ?? 0), Number(schema.exclusiveMinimum ?? -1) + 1);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default: {
      const min = Number(schema.minLength ?? 1);
      const max = Number(schema.maxLength ?? 1_000);
      const text = 'A short answer.'.padEnd(min, '.');
      return text.slice(0, max);
    }
  }
}

/** A megabyte of spaces: padding is written in pieces, never held as one string. */
const PAD_CHUNK = Buffer.alloc(1 << 20, ' ');

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

export class FakeOpenAI {
  /** Every request answered (or refused), in order. */
  readonly calls: ModelCall[] = [];
  /** Why each request OpenAI would have refused was refused (400), in order. */
  readonly rejected: string[] = [];
  private faults: ModelFault[] = [];
  private server: Server | undefined;
  private readonly random: () => number;
  private readonly reply: (request: ChatRequest, n: number) => string;
  /** Streamed words this far apart, unless a fault says otherwise. */
  tokenDelayMs: number;

  constructor(options: FakeOpenAIOptions = {}) {
    this.tokenDelayMs = options.tokenDelayMs ?? 0;
    this.random = options.random ?? Math.random;
    this.reply = options.reply ?? ((_, n) => `Here is a short answer (call ${n}).`);
  }

  /** The base URL to give the client (OPENAI_BASE_URL), ending in /v1. */
  get url(): string {
    const address = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}/v1`;
  }

  /** The next `times` requests meet this fault, in the order faults were added. */
  failNext(fault: ModelFault, times = 1): void {
    for (let i = 0; i < times; i++) this.faults.push(fault);
  }

  /** Forgets faults not yet met. */
  clearFaults(): void {
    this.faults = [];
  }

  async start(port = 0): Promise<void> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: Error) => {
        if (!res.headersSent) this.error(res, 500, error.message);
        else res.end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private error(res: ServerResponse, status: number, message?: string, retryAfter?: number): void {
    const body = ERRORS[status] ?? ERRORS[500];
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {}),
      'x-request-id': `req_${randomUUID().replace(/-/g, '')}`,
    });
    res.end(JSON.stringify({ error: { ...body, message: message ?? body?.message, param: null } }));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'fake' }] }),
      );
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: `Unknown request URL: ${req.method} ${path}`, type: 'invalid_request_error' },
        }),
      );
      return;
    }
    if (!String(req.headers.authorization ?? '').startsWith('Bearer ')) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: 'You did not provide an API key.', type: 'invalid_request_error', code: null },
        }),
      );
      return;
    }
    const request = (await readJson(req)) as ChatRequest;
    const invalid = invalidRequest(request);
    if (invalid) {
      this.calls.push({ at: Date.now(), model: request.model, stream: !!request.stream, answered: 400 });
      this.rejected.push(invalid);
      return this.error(res, 400, invalid);
    }
    const fault = this.faults.shift();
    const call: ModelCall = { at: Date.now(), model: request.model, stream: !!request.stream, answered: 0 };
    // The call's number is its place on arrival: read after a slow answer's wait, it would be the
    // number of the last call that came meanwhile, and two calls would give the same answer.
    const n = this.calls.push(call);
    if (fault?.delayMs) await this.wait(fault.delayMs, res);
    if (res.destroyed || req.socket.destroyed) {
      call.hungUp = true;
      return;
    }
    if (fault?.status) {
      call.answered = fault.status;
      this.error(res, fault.status, undefined, fault.status === 429 ? (fault.retryAfter ?? 1) : undefined);
      return;
    }
    if (fault?.trickleMs) {
      call.answered = 'trickle';
      return this.trickle(res, fault.trickleMs, () => {
        call.hungUp = true;
      });
    }
    const answered = this.answer(request, n);
    const { content, toolCall } = fault?.answer
      ? answered.toolCall
        ? { content: null, toolCall: { ...answered.toolCall, arguments: JSON.stringify(fault.answer) } }
        : { content: JSON.stringify(fault.answer) }
      : answered;
    call.answered = toolCall ? 'tool' : request.response_format?.type === 'json_schema' ? 'json' : 'content';
    const id = `chatcmpl-${randomUUID().replace(/-/g, '')}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    const toolCalls = toolCall
      ? [{ id: `call_${randomUUID().slice(0, 8)}`, type: 'function', function: toolCall }]
      : undefined;
    const finish = toolCall ? 'tool_calls' : 'stop';
    if (!request.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const body = JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model: request.model,
        system_fingerprint: 'fp_fake',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content, refusal: null, tool_calls: toolCalls },
            logprobs: null,
            finish_reason: finish,
          },
        ],
        usage,
      });
      if (!fault?.padToBytes) return void res.end(body);
      // Whitespace before the closing brace: still valid JSON, just too much of it.
      const padding = Math.max(0, fault.padToBytes - Buffer.byteLength(body));
      res.write(body.slice(0, -1));
      for (let left = padding; left > 0; left -= PAD_CHUNK.length) {
        res.write(left >= PAD_CHUNK.length ? PAD_CHUNK : PAD_CHUNK.subarray(0, left));
      }
      res.end('}');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (fault?.padToBytes) {
      // Comment lines before the first event: still a valid event stream, just too much of it.
      const line = Buffer.from(`:${' '.repeat((64 << 10) - 3)}\n\n`);
      for (let left = fault.padToBytes; left > 0 && !res.destroyed; left -= line.length) res.write(line);
    }
    const chunk = (choices: object[], extra: object = {}) =>
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices, ...extra })}\n\n`,
      );
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
    const delay = fault?.tokenDelayMs ?? this.tokenDelayMs;
    // A plain answer a word at a time (all of it at once when no delay is asked for); a structured
    // one as one piece, as its JSON is not shown as it comes.
    const pieces = !content
      ? []
      : delay > 0 || fault?.cutAfterTokens !== undefined
        ? words(content)
        : [content];
    call.tokensSent = 0;
    for (const piece of pieces) {
      if (fault?.cutAfterTokens !== undefined && call.tokensSent >= fault.cutAfterTokens) {
        // Dies mid-answer, once what it sent is on the wire: no finish, no [DONE], the connection gone.
        await new Promise<void>((resolve) => res.write('', () => resolve()));
        res.destroy();
        return;
      }
      if (call.tokensSent > 0 && delay > 0) await this.wait(delay, res);
      if (res.destroyed) {
        call.hungUp = true;
        return;
      }
      chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]);
      call.firstTokenAt ??= Date.now();
      call.tokensSent += 1;
    }
    if (toolCalls)
      chunk([
        {
          index: 0,
          delta: { tool_calls: toolCalls.map((t, i) => ({ index: i, ...t })) },
          finish_reason: null,
        },
      ]);
    chunk([{ index: 0, delta: {}, finish_reason: finish }]);
    if (request.stream_options?.include_usage) chunk([], { usage });
    res.end('data: [DONE]\n\n');
  }

  /** What to answer: a tool call, a JSON instance of the requested schema, or a sentence. */
  private answer(
    request: ChatRequest,
    n: number,
  ): { content: string | null; toolCall?: { name: string; arguments: string } } {
    const tools = request.tools ?? [];
    const choice = request.tool_choice;
    const lastRole = request.messages.at(-1)?.role;
    const named = typeof choice === 'object' ? choice.function?.name : undefined;
    const wantsTool =
      tools.length > 0 &&
      choice !== 'none' &&
      (named !== undefined || choice === 'required' || lastRole !== 'tool');
    if (wantsTool) {
      const tool = tools.find((t) => t.function.name === named) ?? tools[0];
      if (tool) {
        const args = minimalInstance(tool.function.parameters ?? { type: 'object' }, this.random);
        return { content: null, toolCall: { name: tool.function.name, arguments: JSON.stringify(args) } };
      }
    }
    const schema =
      request.response_format?.type === 'json_schema'
        ? request.response_format.json_schema?.schema
        : undefined;
    if (schema) return { content: JSON.stringify(minimalInstance(schema, this.random)) };
    if (request.response_format?.type === 'json_object') return { content: '{}' };
    return { content: this.reply(request, n) };
  }

  /** Headers and a first byte, then a byte every `ms` until the client hangs up. */
  private trickle(res: ServerResponse, ms: number, hungUp: () => void): void {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{');
    const timer = setInterval(() => res.write(' '), ms);
    res.once('close', () => {
      clearInterval(timer);
      hungUp();
    });
  }

  /** Waits, or stops waiting when the client hangs up (an aborted request). */
  private wait(ms: number, res: ServerResponse): Promise<void> {
    return new Promise((resolve) => {
      // Each wait's listener goes when it is over: a streamed answer waits once a word.
      const hungUp = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        res.off('close', hungUp);
        resolve();
      }, ms);
      res.once('close', hungUp);
    });
  }
}

/** A text in the pieces a model streams it in: each word with the space after it. */
const words = (text: string): string[] => text.match(/\S+\s*|\s+/g) ?? [];
