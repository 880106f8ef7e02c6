/**
 * A failure to start, said as what failed and what to do instead of a bare errno (`ENOTDIR: …
 * mkdir`, `connect ECONNREFUSED 127.0.0.1:1`): a data folder that cannot be made or written, a
 * database that does not answer or refuses the login. Anything else keeps its own message.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

interface CodedError {
  code?: string;
  syscall?: string;
  path?: string;
  message?: string;
  cause?: unknown;
  errors?: unknown[];
}

const FILE_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
};

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'its host name could not be looked up',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'the connection was reset',
};

/** The error and everything it wraps (`cause`, an AggregateError's `errors`), outermost first. */
function* chain(error: unknown, depth = 0): Generator<CodedError> {
  if (!error || typeof error !== 'object' || depth > 8) return;
  const e = error as CodedError;
  yield e;
  for (const inner of e.errors ?? []) yield* chain(inner, depth + 1);
  yield* chain(e.cause, depth + 1);
}

const inside = (path: string, folder: string) => !relative(folder, path).startsWith('..');

/** The sentence for a failure to start, or `undefined` when it is none of the known ones. */
export function startFailureInWords(
  error: unknown,
  database: { url?: string; dataDir: string },
): string | undefined {
  for (const e of chain(error)) {
    const file = e.path && e.code ? fileProblem(e, database.dataDir) : undefined;
    if (file) return file;
    if (database.url && (e.code || e.message)) {
      const db = databaseProblem(e, database.url);
      if (db) return db;
    }
  }
  return undefined;
}

function fileProblem(e: CodedError, dataDir: string): string | undefined {
  const path = resolve(e.path as string);
  const folder = resolve(dataDir);
  if (!inside(path, folder) && !inside(folder, path)) return undefined;
  const reason =
    e.code === 'ENOTDIR' || e.code === 'EEXIST'
      ? `${inTheWay(folder) ?? path} is not a folder`
      : // Folders are made one level at a time (data-dir.ts makeFolder): ENOENT once the folder
        // above exists is that folder refusing new ones (/proc, /sys on some systems).
        e.code === 'ENOENT' && e.syscall === 'mkdir'
        ? `${dirname(path)} does not take new folders`
        : FILE_REASONS[e.code as string];
  if (!reason) return undefined;
  const what = e.syscall === 'mkdir' ? 'cannot create the data folder' : 'cannot write to the data folder';
  return `${what} ${folder}: ${reason}; set SIGNOFF_DATA_DIR to a folder you can write`;
}

/** The nearest existing path at or above `folder` when it is a file, not a folder. */
function inTheWay(folder: string): string | undefined {
  for (let p = folder; ; p = dirname(p)) {
    if (existsSync(p)) return statSync(p).isDirectory() ? undefined : p;
    if (p === dirname(p)) return undefined;
  }
}

function databaseProblem(e: CodedError, url: string): string | undefined {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return undefined;
  }
  const where = `the database at ${target.hostname}:${target.port || 5432}`;
  const network = NETWORK_REASONS[e.code as string];
  if (network) return `${where} did not answer (${network}): is it running? check DATABASE_URL`;
  // node-postgres's words (no code) for a server that closed the connection before or instead of
  // answering: something else listens there, or a server that refuses this client (TLS, pg_hba).
  if (!e.code && /^Connection terminated/.test(e.message ?? ''))
    return `${where}/${decodeURIComponent(target.pathname.slice(1))} hung up without answering (connection terminated unexpectedly): is a PostgreSQL server listening there, and does it take this connection (sslmode, pg_hba.conf)? check DATABASE_URL`;
  // Postgres's own refusals (SQLSTATE): the login, or the database named in the URL.
  if (e.code === '28P01' || e.code === '28000')
    return `${where} refused the login of "${decodeURIComponent(target.username)}" (${e.message}): check the user and password in DATABASE_URL`;
  if (e.code === '3D000')
    return `${where} has no database "${decodeURIComponent(target.pathname.slice(1))}": create it, or check DATABASE_URL`;
  // Migrations run at every start and create the schemas `signoff` and `langgraph`: a user that
  // may only connect (PostgreSQL's default for a database it does not own) fails the first one.
  // Another refusal (creating a database: `signoff test`'s own sentence says what to grant) is not this one.
  if (
    e.code === '42501' &&
    /permission denied for (database|schema|table|relation|sequence)\b/.test(e.message ?? '')
  ) {
    const user = decodeURIComponent(target.username) || 'the user DATABASE_URL names';
    const name = decodeURIComponent(target.pathname.slice(1));
    const role = target.username ? ident(user) : 'CURRENT_USER';
    // Only "permission denied for database" is a missing CREATE; a schema or table refused belongs
    // to another role (another signoff's), which no grant on the database mends.
    return /for database/.test(e.message ?? '')
      ? `${where}: user "${user}" may not create signoff's schemas in database "${name}" (${e.message}): make it the database's owner (ALTER DATABASE ${ident(name)} OWNER TO ${role}), or GRANT CREATE ON DATABASE ${ident(name)} TO ${role}`
      : `${where}: user "${user}" may not use signoff's tables in database "${name}" (${e.message}): they belong to another role; connect as that role, or have it grant this one its rights (or give signoff a database of its own)`;
  }
  return undefined;
}

/** A name as SQL quotes it where it must: "signoff-np", not signoff-np. */
const ident = (name: string) => (/^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`);
