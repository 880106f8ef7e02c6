import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { Logger } from '../../logger.js';

const LEVELS: Record<string, LogLevel> = {
  trace: LogLevel.DEBUG,
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
  error: LogLevel.ERROR,
  fatal: LogLevel.ERROR,
  silent: LogLevel.ERROR,
};

export interface BoltLoggerOptions {
  /** The `component` field of each line (default `bolt`). */
  component?: string;
  /** Every line at this level, whatever level the library gave it: for a library's chatter. */
  level?: 'debug';
}

/** pino as Bolt's logger: the logger scrubs tokens inside its lines (a socket URL's ticket, say), which `redact` cannot see. */
export function boltLogger(logger: Logger, o: BoltLoggerOptions = {}): BoltLogger {
  const child = logger.child({ component: o.component ?? 'bolt' });
  const line = (msg: unknown[]) => msg.map(String).join(' ');
  if (o.level === 'debug') {
    const debug = (...msg: unknown[]) => child.debug(line(msg));
    return {
      debug,
      info: debug,
      warn: debug,
      error: (...msg) => child.debug({ err: msg.find((m) => m instanceof Error) }, line(msg)),
      setLevel: () => undefined,
      // The library asks before it builds a costly line (each ack's payload): only when shown.
      getLevel: () => (child.isLevelEnabled('debug') ? LogLevel.DEBUG : LogLevel.ERROR),
      setName: () => undefined,
    };
  }
  return {
    debug: (...msg) => child.debug(line(msg)),
    info: (...msg) => child.info(line(msg)),
    warn: (...msg) => child.warn(line(msg)),
    error: (...msg) => child.error({ err: msg.find((m) => m instanceof Error) }, line(msg)),
    setLevel: () => undefined,
    getLevel: () => LEVELS[logger.level] ?? LogLevel.INFO,
    setName: () => undefined,
  };
}
