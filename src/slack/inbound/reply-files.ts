/**
 * Files on a thread reply. A reply with a file (a screenshot, a log) arrives as a message of
 * subtype `file_share` carrying the words typed with it (`text`) and `files`. The agents read text
 * only: signoff does not download files (that would need the `files:read` scope, and the models
 * are not given images), so a file cannot reach them. The reply counts by its words, as any reply
 * does; the files are named in a line after the words, so that the agents know something was shown
 * that they cannot see, and the people reading the feedback on the card see that too.
 */
import { z } from 'zod';

/**
 * What a message's file says about itself. In a Slack Connect channel a file shared from another
 * organization comes with its id only (`file_access: "check_file_info"`), and a workspace over
 * its plan's limits hides files (`mode: "hidden_by_limit"`): no name then.
 */
const fileSchema = z.object({ name: z.string().optional(), title: z.string().optional() });
const filesSchema = z.array(z.unknown()).max(100);

/** Named in the line at most; the rest are counted. */
const NAMED = 5;
/** A file name is cut to this many characters (Slack allows 255). */
const NAME_LENGTH = 80;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is taken out
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;

/** A name as one short line: no control characters, newlines or runs of spaces. */
const clean = (name: string) => {
  const flat = name.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > NAME_LENGTH ? `${flat.slice(0, NAME_LENGTH - 1)}…` : flat;
};

/** The files a message event carries (`files`), as Slack sent them; none when it sent none or garbage. */
export function filesOf(event: object): { name?: string }[] {
  const files = filesSchema.safeParse((event as { files?: unknown }).files);
  if (!files.success) return [];
  return files.data.map((f) => {
    const file = fileSchema.safeParse(f);
    const name = file.success ? clean(file.data.name || file.data.title || '') : '';
    return name ? { name } : {};
  });
}

/** The line that names the files after a reply's words; undefined when there are none. */
export function filesLine(files: { name?: string }[]): string | undefined {
  if (files.length === 0) return undefined;
  const names = files.flatMap((f) => (f.name ? [f.name] : [])).slice(0, NAMED);
  const others = files.length - names.length;
  const counted = others === 1 ? '1 file' : `${others} files`;
  const what =
    names.length === 0 ? counted : others > 0 ? `${names.join(', ')} and ${others} more` : names.join(', ');
  return `(Attached in Slack: ${what}. The agents cannot open files; only these words reach them.)`;
}

/** A reply's words with its files' line after them. */
export function withFiles(words: string, files: { name?: string }[]): string {
  const line = filesLine(files);
  if (!line) return words;
  return words ? `${words}\n\n${line}` : line;
}
