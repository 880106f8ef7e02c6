/**
 * Where the embedded PostgreSQL keeps its data when SIGNOFF_DATA_DIR is unset. A command typed in
 * a subfolder of the project (`cd examples && npx signoff tasks`) must read the same tasks, not
 * start a second, empty database there: so, as git finds its `.git`, the `.data` holding a
 * database in this folder or the nearest one above it, up to the project's own folder (the
 * nearest with a package.json) and never past it. None there: the project's folder's, so that
 * the first command, wherever in the project it is typed, makes it where the next ones look
 * (this folder's, outside any project).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const hasDatabase = (folder: string) => existsSync(join(folder, '.data', 'pg', 'PG_VERSION'));

export function defaultDataDir(cwd: string): string {
  const here = resolve(cwd);
  for (let folder = here; ; folder = dirname(folder)) {
    if (hasDatabase(folder)) return join(folder, '.data');
    if (existsSync(join(folder, 'package.json'))) return join(folder, '.data');
    // The root, and no project: this folder's.
    if (dirname(folder) === folder) return join(here, '.data');
  }
}
