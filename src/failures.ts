/**
 * What a failed step tells people: a coded sentence saying what happened and what to do, never
 * the error's own text. A provider's message can quote a masked API key, name internal hosts or
 * carry a troubleshooting link; it stays in the logs, with the error object, for the operator.
 */
export const FAILURE_CODES = [
  'rate_limit',
  'quota',
  'auth',
  'model_not_found',
  'too_long',
  'bad_request',
  'server_error',
  'timeout',
  'unreachable',
  'bad_address',
  'untrusted',
  'bad_answer',
  'database',
  'unsaved',
  'internal',
  // A workflow whose graph runs on a LangGraph server (workflows/remote/): the server's side.
  'graph_server_unreachable',
  'graph_server_timeout',
  'graph_server_auth',
  'graph_server_refused',
  'graph_server_error',
  'graph_failed',
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

const ASK_OPERATOR = 'ask whoever runs signoff to check';

export const FAILURE_SENTENCES: Record<FailureCode, string> = {
  rate_limit: 'The model service refused the request: rate limit. Retry when it recovers.',
  quota: `The model service refused the request: the account is out of quota. Retry once the quota is raised (${ASK_OPERATOR} the plan).`,
  auth: `The model service refused the request: the API key was not accepted. Retry once it is fixed (${ASK_OPERATOR} OPENAI_API_KEY).`,
  model_not_found: `The model service does not offer the configured model. Retry once it is fixed (${ASK_OPERATOR} the model name).`,
  too_long:
    'The model service refused the request: it is longer than the model can read. Retry with shorter instructions, or start a smaller task.',
  bad_request: `The model service refused the request as invalid. Retry; if it fails again, ${ASK_OPERATOR} the logs.`,
  server_error: 'The model service failed on its side (a server error). Retry when it recovers.',
  timeout: 'The model service did not answer in time. Retry when it recovers.',
  unreachable: `The model service could not be reached. Retry when it recovers; if it keeps failing, ${ASK_OPERATOR} OPENAI_BASE_URL.`,
  bad_address: `The model service's address cannot be used: its port is one web clients never call, its scheme is not http or https, or it is not a URL. Retry once it is fixed (${ASK_OPERATOR} OPENAI_BASE_URL).`,
  untrusted: `The model service's certificate is not trusted. Retry once it is fixed (${ASK_OPERATOR} OPENAI_BASE_URL, or NODE_EXTRA_CA_CERTS for a private certificate authority).`,
  bad_answer: "The model's answer was not in the form this step needs. Retry.",
  database: 'The database did not answer during this step. Retry.',
  unsaved: `signoff could not save what this step ended with (a review to ask for, or the task's end), so the task stopped here. Retry; if it fails again, ${ASK_OPERATOR} the logs.`,
  internal: `This step failed on an unexpected error. Retry; if it fails again, ${ASK_OPERATOR} the logs.`,
  graph_server_unreachable: `The LangGraph server this workflow runs on could not be reached. Retry when it is back; if it keeps failing, ${ASK_OPERATOR} the workflow's remote url.`,
  graph_server_timeout:
    'The LangGraph server this workflow runs on did not answer in time. Retry when it recovers.',
  graph_server_auth: `The LangGraph server this workflow runs on refused signoff's API key. Retry once it is fixed (${ASK_OPERATOR} the workflow's remote apiKey).`,
  graph_server_refused: `The LangGraph server this workflow runs on refused the request (is the graph named in the workflow's remote settings served there?). Retry; if it fails again, ${ASK_OPERATOR} the logs.`,
  graph_server_error:
    'The LangGraph server this workflow runs on failed on its side (a server error). Retry when it recovers.',
  graph_failed: `The graph on the LangGraph server failed in this step. Retry; if it fails again, ${ASK_OPERATOR} the server's logs.`,
};

/**
 * Why a call got no answer, in plain words, by the socket's or the resolver's code. The cause names
 * no host, so Slack's sentence says it too: "connection refused" or "no such host", passed on to
 * whoever runs signoff, saves them a look at the logs. Only the terminal names the address.
 */
const NO_ANSWER: Record<string, { cause: string; fix: (at: string) => string }> = {
  ECONNREFUSED: {
    cause: 'connection refused: nothing listens there',
    fix: (at) =>
      `Retry once a model service runs at ${at}, or OPENAI_BASE_URL names the address where one does.`,
  },
  ENOTFOUND: {
    cause: 'no such host: its host name is not known',
    // OpenAI's own host (no OPENAI_BASE_URL set) is no typo: this machine cannot look it up.
    fix: (at) =>
      at.startsWith('api.openai.com:')
        ? 'Retry once this machine can look up api.openai.com (is it online? does its DNS answer?).'
        : 'Retry once the host name in OPENAI_BASE_URL is right (a typo?).',
  },
  EAI_AGAIN: {
    cause: 'its host name could not be looked up',
    fix: () => 'Retry once the network is back; if it keeps failing, check the host name in OPENAI_BASE_URL.',
  },
  ECONNRESET: {
    cause: 'the connection was cut',
    fix: (at) => `Retry; if it keeps failing, check that the model service at ${at} runs.`,
  },
  EHOSTUNREACH: {
    cause: 'no route to its host',
    fix: () => 'Retry once the network reaches it; if it keeps failing, check the host in OPENAI_BASE_URL.',
  },
};
const SAME_CAUSE: Record<string, string> = {
  EPIPE: 'ECONNRESET',
  UND_ERR_SOCKET: 'ECONNRESET',
  ENETUNREACH: 'EHOSTUNREACH',
};
const noAnswerCause = (errno: string | undefined) =>
  errno ? NO_ANSWER[SAME_CAUSE[errno] ?? errno] : undefined;

/**
 * What the terminal's sentences name in place of an address they were not given: a sentence
 * another process stored (a Slack worker, an earlier run with other settings) is about the
 * address that process had, which need not be this terminal's.
 */
const AS_IT_RAN = 'OPENAI_BASE_URL as it was set when the task ran';

/**
 * Where a task that got no answer called, unnamed: with OPENAI_BASE_URL unset it was OpenAI's own
 * service, and a sentence naming only the variable sent a reader who never set it looking for it.
 */
const WHERE_IT_RAN =
  "the address the task used (OPENAI_BASE_URL as it was set then, or OpenAI's api.openai.com if it was not; it may differ from this terminal's)";

/** The team's sentence for a call that got no answer, with its cause when known. */
function unreachableSentence(errno: string | undefined): string {
  const known = noAnswerCause(errno);
  return known
    ? `The model service could not be reached (${known.cause}). Retry when it recovers; if it keeps failing, ${ASK_OPERATOR} OPENAI_BASE_URL.`
    : FAILURE_SENTENCES.unreachable;
}

/** The keyboard's: the address, the cause and what to fix, then Retry; without the address, what to check. */
function keyboardUnreachable(errno: string | undefined, at: string | undefined): string {
  const known = noAnswerCause(errno);
  if (!at)
    return `The model service could not be reached${known ? ` (${known.cause})` : ''}. Check that a model service answers at ${WHERE_IT_RAN}, then Retry.`;
  return known
    ? `The model service at ${at} could not be reached (${known.cause}). ${known.fix(at)}`
    : `The model service at ${at} could not be reached. Retry once it runs there, or OPENAI_BASE_URL names the address where one does.`;
}

/** fetch's own words for a port it never calls (1, 9, 22, 25…), as they come in its `cause`. */
const BAD_PORT = 'bad port';

/** The team's sentence for an address fetch refuses, saying which part when fetch said so. */
function badAddressSentence(refusal: string | undefined): string {
  return refusal === BAD_PORT
    ? `The model service's address cannot be used: its port is one web clients never call. Retry once it is fixed (${ASK_OPERATOR} OPENAI_BASE_URL).`
    : FAILURE_SENTENCES.bad_address;
}

function keyboardBadAddress(refusal: string | undefined, at: string | undefined): string {
  const address = at ? `The model service's address ${at}` : `The model service's address, ${AS_IT_RAN},`;
  return refusal === BAD_PORT
    ? `${address} cannot be used: web clients never call that port (fetch refuses it). Retry once OPENAI_BASE_URL is the service's address, with its own port.`
    : `${address} cannot be used: its scheme is not http or https, or it is not a URL. Retry once OPENAI_BASE_URL is the service's http(s) address.`;
}

/** Every team sentence about the model's address, and the terminal's, given the address. */
const ADDRESS_SENTENCES: [string, (at?: string) => string][] = [
  ...[undefined, ...Object.keys(NO_ANSWER)].map((errno): [string, (at?: string) => string] => [
    unreachableSentence(errno),
    (at) => keyboardUnreachable(errno, at),
  ]),
  ...[undefined, BAD_PORT].map((refusal): [string, (at?: string) => string] => [
    badAddressSentence(refusal),
    (at) => keyboardBadAddress(refusal, at),
  ]),
];

/** Where the terminal's log is: the data folder's file (cli/log-file.ts), which it names on the screen. */
const IN_THE_LOG = 'the details are in signoff.log in the data folder';

/**
 * The same sentences for the person at the keyboard, who runs signoff themselves (the terminal):
 * "ask whoever runs signoff" reads oddly to them, so they are told what to set or fix. Slack keeps
 * the sentences above: a team's members do not run the service.
 */
export const FAILURE_SENTENCES_AT_THE_KEYBOARD: Record<FailureCode, string> = {
  ...FAILURE_SENTENCES,
  quota:
    'The model service refused the request: the account is out of quota. Retry once the quota of the account whose key OPENAI_API_KEY holds is raised.',
  auth: 'The model service refused the request: the API key was not accepted. Retry once OPENAI_API_KEY holds a key the service accepts.',
  model_not_found:
    "The model service does not offer the configured model. Retry once OPENAI_MODEL (or the agent's `model` in the config file) names a model it offers.",
  bad_request: `The model service refused the request as invalid. Retry; if it fails again, ${IN_THE_LOG}.`,
  unreachable: keyboardUnreachable(undefined, undefined),
  bad_address: keyboardBadAddress(undefined, undefined),
  untrusted:
    "The model service's certificate is not trusted. Retry once it is fixed: check OPENAI_BASE_URL, or for a private certificate authority set NODE_EXTRA_CA_CERTS to its certificate's file.",
  unsaved: `signoff could not save what this step ended with (a review to ask for, or the task's end), so the task stopped here. Retry; if it fails again, ${IN_THE_LOG}.`,
  internal: `This step failed on an unexpected error. Retry; if it fails again, ${IN_THE_LOG}.`,
  graph_server_unreachable:
    "The LangGraph server this workflow runs on could not be reached. Retry once it runs at the workflow's remote url in the config file.",
  graph_server_auth:
    "The LangGraph server this workflow runs on refused signoff's API key. Retry once the workflow's remote apiKey in the config file is one the server accepts.",
  graph_server_refused: `The LangGraph server this workflow runs on refused the request (is the graph named in the workflow's remote settings served there?). Retry; if it fails again, ${IN_THE_LOG}.`,
  graph_failed:
    "The graph on the LangGraph server failed in this step. Retry; if it fails again, see the server's logs.",
};

/**
 * `text` (a task's status reason, a review's body) with each sentence addressed to whoever runs
 * signoff said to the person at the keyboard instead. The sentences are stored as Slack shows
 * them; the terminal phrases them for its reader as it prints them. `modelAddress` (host:port,
 * from the terminal's own OPENAI_BASE_URL) names the model service where a sentence is about its
 * address; the sentences already said without it are named again with it. Given only for a
 * sentence a step run in this process ended with: another process's may name another address.
 */
export function atTheKeyboard(text: string, modelAddress?: string): string {
  let said = text;
  for (const code of FAILURE_CODES) {
    const own = FAILURE_SENTENCES_AT_THE_KEYBOARD[code];
    if (own !== FAILURE_SENTENCES[code]) said = said.replaceAll(FAILURE_SENTENCES[code], own);
  }
  for (const [team, own] of ADDRESS_SENTENCES) {
    said = said.replaceAll(team, own());
    if (modelAddress) said = said.replaceAll(own(), own(modelAddress));
  }
  return said;
}

/**
 * The model service's address as the terminal names it: host and port only, never the URL's
 * user, password, path or query (a key may sit in any of them). OpenAI's own when no base URL is
 * set; undefined for the offline model, which has none.
 */
export function modelAddress(model: { apiKey?: string; baseUrl?: string }): string | undefined {
  if (!model.apiKey) return undefined;
  if (!model.baseUrl) return 'api.openai.com:443';
  try {
    const url = new URL(model.baseUrl);
    return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return undefined;
  }
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
]);

/**
 * What fetch (undici) refuses before any connection: a port the fetch standard blocks (`bad
 * port`: 1, 9, 22, 25…), a scheme other than http(s), a URL it cannot parse. Its own words, as
 * they come in the `cause` of its `TypeError: fetch failed`; retrying cannot help.
 */
const REFUSED_ADDRESS = new Set(['bad port', 'unknown scheme', 'invalid url']);
/** TLS's refusals of a server's certificate (Node's codes for OpenSSL's verify errors). */
const CERTIFICATE = /^(CERT_|UNABLE_TO_(GET_ISSUER|VERIFY|DECRYPT)|SELF_SIGNED|DEPTH_ZERO|ERR_TLS_CERT)/;

/** The error and what it wraps, outermost first (LangChain and LangGraph wrap provider errors). */
function* chain(error: unknown): Generator<Record<string, unknown>> {
  let current = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    yield current as Record<string, unknown>;
    current = (current as { cause?: unknown }).cause;
  }
}

/**
 * A call that got no answer at all: the OpenAI client's APIConnectionError (its `name` is plain
 * "Error": its class says it) or fetch's own `TypeError: fetch failed`. What it wraps says why
 * (an address fetch refuses, a certificate, a refused connection); nothing deeper, unreachable.
 */
function noAnswer(e: Record<string, unknown>): boolean {
  const type = (e.constructor as { name?: string } | undefined)?.name;
  return (
    e.name === 'APIConnectionError' ||
    type === 'APIConnectionError' ||
    (e.name === 'TypeError' && e.message === 'fetch failed')
  );
}

function codeOf(e: Record<string, unknown>): FailureCode | undefined {
  const name = String(e.name ?? (e.constructor as { name?: string } | undefined)?.name ?? '');
  // A LangGraph server's failure, already told apart where it happened (workflows/remote/).
  if (name === 'RemoteGraphError' && FAILURE_CODES.includes(e.failure as FailureCode))
    return e.failure as FailureCode;
  const status = typeof e.status === 'number' ? e.status : undefined;
  const code = typeof e.code === 'string' ? e.code : undefined;
  const lcCode = typeof e.lc_error_code === 'string' ? e.lc_error_code : undefined;
  if (name === 'ContextOverflowError' || code === 'context_length_exceeded') return 'too_long';
  if (name === 'TimeoutError' || name === 'APIConnectionTimeoutError' || code === 'ETIMEDOUT')
    return 'timeout';
  if (status === 429) return code === 'insufficient_quota' ? 'quota' : 'rate_limit';
  if (status === 401 || status === 403 || lcCode === 'MODEL_AUTHENTICATION') return 'auth';
  if (status === 404 || lcCode === 'MODEL_NOT_FOUND') return 'model_not_found';
  if (status === 400 || status === 422) return 'bad_request';
  if (status !== undefined && status >= 500) return 'server_error';
  if (code === 'ERR_INVALID_URL' || REFUSED_ADDRESS.has(String(e.message).toLowerCase()))
    return 'bad_address';
  if (code && CERTIFICATE.test(code)) return 'untrusted';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'timeout';
  if (code && CONNECTION_CODES.has(code)) return 'unreachable';
  // zod's errors (ZodError, zod 4's core $ZodError) carry their issues; LangChain's parser its own
  // name, or only its code (a streamed answer's parser throws it named plain `Error`). An answer
  // over the size cap (bounded-fetch.ts) cannot be used either.
  if (
    Array.isArray(e.issues) ||
    name === 'OutputParserException' ||
    lcCode === 'OUTPUT_PARSING_FAILURE' ||
    name === 'AnswerTooLargeError'
  )
    return 'bad_answer';
  // node-postgres errors carry Postgres's severity and five-character SQLSTATE.
  if (typeof e.severity === 'string' && code && /^[0-9A-Z]{5}$/.test(code)) return 'database';
  return undefined;
}

/** The failure's code and the sentence people see. */
export function describeFailure(error: unknown): { code: FailureCode; sentence: string } {
  let fallback: FailureCode = 'internal';
  for (const e of chain(error)) {
    const code = codeOf(e);
    if (code === 'unreachable') return { code, sentence: unreachableSentence(String(e.code)) };
    if (code === 'bad_address')
      return { code, sentence: badAddressSentence(String(e.message).toLowerCase()) };
    if (code) return { code, sentence: FAILURE_SENTENCES[code] };
    if (noAnswer(e)) fallback = 'unreachable';
  }
  return { code: fallback, sentence: FAILURE_SENTENCES[fallback] };
}

/**
 * How loudly to log a failure people were told about in a sentence: a model service that refused,
 * failed or could not be reached is the service's business and the sentence says what to do
 * (info: the terminal, logging at warn, shows the sentence alone, no JSON and no stack); an
 * unexpected error (whose sentence says "check the logs") is the operator's, at warn.
 */
export function failureLogLevel(code: FailureCode): 'info' | 'warn' {
  return code === 'internal' || code === 'database' ? 'warn' : 'info';
}
