/**
 * A terminal's status line: one line ("Writer is thinking…") that the next thing written
 * replaces. Only on a TTY; in a pipe (a file, a test) nothing of it is ever written.
 */
import type { Output } from './printer.js';

/** Clears the current line and puts the cursor at its start. */
const CLEAR_LINE = '\r\x1b[2K';

export function statusLine(out: Output, tty: boolean): Required<Output> {
  let showing: string | undefined;
  const clear = () => {
    if (showing) out.write(CLEAR_LINE);
    showing = undefined;
  };
  return {
    write: (text) => {
      clear();
      out.write(text);
    },
    status: (text) => {
      // Written again only when it changes: a line rewritten four times a second flickers.
      if (!tty || text === showing) return;
      clear();
      if (!text) return;
      out.write(text);
      showing = text;
    },
  };
}
