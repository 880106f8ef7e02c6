import pino from 'pino';

export type Logger = pino.Logger;

/** Tokens and secrets never reach a log line, whatever object carries them. */
const REDACT = [
  'token',
  'botToken',
  'appToken',
  'signingSecret',
  'apiKey',
  'password',
  '*.token',
  '*.botToken',
  '*.appToken',
  '*.signingSecret',
  '*.apiKey',
  '*.password',
  'headers.authorization',
  '*.headers.authorization',
];

/**
 * Secrets inside strings, where `redact` (which works on paths) cannot see: Slack tokens, the
 * Socket Mode URL's ticket, API keys and passwords in connection strings, Bearer headers.
 */
const SECRETS: [RegExp, string][] = [
  [/\bxox[a-z]-[A-Za-z0-9-]+/g, 'xox?-[redacted]'],
  [/\bxapp-[A-Za-z0-9-]+/g, 'xapp-[redacted]'],
  [/\bticket=[^&\s"']+/g, 'ticket=[redacted]'],
  [/\bsk-[A-Za-z0-9_*-]{6,}/g, 'sk-[redacted]'],
  [/\bBearer [A-Za-z0-9._~+/=-]+/g, 'Bearer [redacted]'],
  [/(\/\/[^:/@\s]+:)[^@\s]+@/g, '$1[redacted]@'],
];

export function scrub(text: string): string {
  return SECRETS.reduce((s, [pattern, replacement]) => s.replace(pattern, replacement), text);
}

/**
 * Properties an error may carry that must not be serialized: a pg client or pool (its whole
 * connection state, password included), a Node socket, an HTTP request with its headers.
 */
const DROPPED = new Set(['client', 'connection', 'pool', 'socket', 'request', 'config', 'headers']);

/** An error's own fields, minus what must not be logged, with its cause chain (a few deep). */
function loggable(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error) || depth > 4) return error;
  const copy = new Error(scrub(error.message)) as Error & Record<string, unknown>;
  copy.name = error.name;
  copy.stack = error.stack && scrub(error.stack);
  for (const [key, value] of Object.entries(error)) {
    if (DROPPED.has(key) || key === 'cause') continue;
    copy[key] = typeof value === 'string' ? scrub(value) : value;
  }
  if (error.cause !== undefined) copy.cause = loggable(error.cause, depth + 1);
  // pino's serializer names the type after the constructor; keep the original's.
  Object.defineProperty(copy, 'constructor', { value: error.constructor, enumerable: false });
  return copy;
}

/** Error objects keep their type, stack and cause; what could leak a secret is left out. */
export const errSerializer = (error: unknown) => pino.stdSerializers.errWithCause(loggable(error) as Error);

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT, censor: '[redacted]' },
      serializers: { err: errSerializer },
      hooks: {
        // Messages too: a library's log line can carry a token in its text.
        logMethod(args, method) {
          method.apply(
            this,
            args.map((a) => (typeof a === 'string' ? scrub(a) : a)) as Parameters<typeof method>,
          );
        },
      },
    },
    destination ?? pino.destination(2),
  );
}
