/**
 * Agents' words printed as a model writes them (the terminal's live view; engine/live.ts). A
 * model that writes its answer whole (the offline one) prints nothing here: its words come with
 * the saved message, as before. Words that streamed are not printed again when saved, unless the
 * saved message differs from them (then it is printed whole, as the agent's message).
 */
import type { LiveView } from '../engine/index.js';
import type { Style } from './markdown.js';
import { CONTROL, type Output } from './printer.js';

/**
 * A piece as the screen may show it: no control character at all (newline and tab aside). A
 * sequence split across pieces cannot come together without its ESC, so each piece is cleaned on
 * its own; the saved message, printed whole, is cleaned as every event is (printer.ts).
 */
const clean = (piece: string) => piece.replace(/\r\n?/g, '\n').replace(CONTROL, '');

export function createTerminalLive(out: Required<Output>, style: Style) {
  /** What each stream printed, by id (kept to compare with the saved words). */
  const printed = new Map<string, string>();
  /** Tasks whose words were printed as written: their agents' names say where they are. */
  const speaking = new Set<string>();
  /** The stream whose words end the screen's last line, if one does. */
  let current: string | undefined;
  const endLine = () => {
    if (current !== undefined) out.write('\n');
    current = undefined;
  };

  const view: LiveView = {
    open: (task) => {
      /** Each stream's first piece, held until a second one shows the model writes as it goes. */
      const first = new Map<string, { agent?: string; text: string }>();
      const print = (id: string, agent: string | undefined, piece: string) => {
        if (current !== id) {
          endLine();
          out.write(`\n${style.bold(`${clean(agent ?? 'Agent')}:`)}\n`);
          current = id;
        }
        const text = clean(piece);
        out.write(text);
        printed.set(id, (printed.get(id) ?? '') + text);
        speaking.add(task.id);
      };
      const over = (ids: string[], note?: string) => {
        for (const id of ids) {
          first.delete(id);
          if (current === id) {
            if (note) out.write(` ${style.dim(note)}`);
            endLine();
          }
        }
      };
      return {
        words(id, agent, delta) {
          if (printed.has(id)) return print(id, agent, delta);
          const held = first.get(id);
          if (!held) return void first.set(id, { agent, text: delta });
          first.delete(id);
          print(id, agent, held.text + delta);
        },
        kept: (ids) => over(ids),
        dropped: (ids) => over(ids, '(not kept)'),
        close: async (how) => {
          const open = [...first.keys(), ...(current ? [current] : [])];
          over(open, how === 'finished' ? undefined : `(${how}: not kept)`);
        },
      };
    },
  };

  return {
    view,
    /** Whether stream `id` printed these saved words as they were written: not printed again. */
    printedAs: (id: string, text: string) => printed.get(id)?.trim() === clean(text).trim(),
    /**
     * Whether the task's agents' words were printed as written here: its steps' `▸` lines, which
     * come later by the database, would only cut into them.
     */
    speaks: (taskId: string) => speaking.has(taskId),
    /** The screen: anything else written ends a line of streamed words first; no status line cuts one. */
    screen: {
      write: (text: string) => {
        endLine();
        out.write(text);
      },
      status: (text?: string) => {
        if (current === undefined) out.status(text);
      },
    } satisfies Required<Output>,
  };
}
