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

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } }, destination ?? pino.destination(2));
}
