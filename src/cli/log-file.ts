/**
 * Where the terminal's logs go: `signoff.log` in the data folder, never the screen. A JSON line
 * with a stack trace in the middle of a review is noise to the person at the prompt (who is told
 * what happened in a sentence) and breaks what the screen shows; the operator reads the file.
 * Lines are written synchronously, so that nothing is lost when the process exits right after.
 */
import { openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { makeFolder } from '../db/data-dir.js';
import { createLogger, type Logger } from '../logger.js';

export interface TerminalLog {
  logger: Logger;
  /** The file, or undefined when it could not be opened (then logs go to stderr, warnings only). */
  file?: string;
  /** How many lines at warn or above were written (the end of the command points at the file). */
  warnings(): number;
}

/** pino's levels as its JSON lines start: `{"level":40` is warn, 50 error, 60 fatal. */
const WARN_OR_WORSE = /^\{"level":(4|5|6)\d/;

/** `level`: LOG_LEVEL when set; the file takes `info` by default, stderr (the fallback) `warn`. */
export function terminalLog(dataDir: string, level?: string): TerminalLog {
  const file = join(dataDir, 'signoff.log');
  let fd: number;
  try {
    makeFolder(dataDir);
    fd = openSync(file, 'a', 0o600);
  } catch {
    // A folder that cannot be written (DATABASE_URL set, the working folder read-only): the
    // screen gets what matters, as before this file existed.
    return { logger: createLogger(level ?? 'warn'), warnings: () => 0 };
  }
  let warnings = 0;
  // Never closed: a line logged while the process exits must still find the file open.
  const logger = createLogger(level ?? 'info', {
    write: (line: string) => {
      if (WARN_OR_WORSE.test(line)) warnings++;
      writeSync(fd, line);
    },
  });
  return { logger, file, warnings: () => warnings };
}
