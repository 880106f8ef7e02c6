/**
 * The thread a task has on a LangGraph server. The server wants UUIDs; signoff's graph threads are
 * named after the task (`<task>` or `<task>#<generation>`, one per Slack thread and redirect). The
 * same name always gives the same UUID (RFC 4122 version 5: SHA-1 of a namespace and the name),
 * so any process finds the thread again without storing it, and a redirect starts a new one.
 */
import { createHash } from 'node:crypto';

/** signoff's namespace for its remote thread ids (a random UUID, fixed once). */
const NAMESPACE = Buffer.from('6f1d5a3e8c2b4e0f9a7d1c3b5e7f9a2c', 'hex');

export function remoteThreadId(threadId: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(threadId, 'utf8').digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
