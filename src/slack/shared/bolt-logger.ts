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

/** pino as Bolt's logger: the logger scrubs tokens inside its lines (a socket URL's ticket, say), which `redact` cannot see. */
export function boltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: 'bolt' });
  return {
    debug: (...msg) => child.debug(msg.map(String).join(' ')),
    info: (...msg) => child.info(msg.map(String).join(' ')),
    warn: (...msg) => child.warn(msg.map(String).join(' ')),
    error: (...msg) => child.error({ err: msg.find((m) => m instanceof Error) }, msg.map(String).join(' ')),
    setLevel: () => undefined,
    getLevel: () => LEVELS[logger.level] ?? LogLevel.INFO,
    setName: () => undefined,
  };
}
