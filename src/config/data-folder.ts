/**
 * Where the embedded PostgreSQL keeps its data when SIGNOFF_DATA_DIR is unset. A command typed in
 * a subfolder of the project (`cd examples && npx signoff tasks`) must read the same tasks, not
 * start a second, empty database there: so, as git finds its `.git`, the `.data` holding a
 * database in this folder or the nearest one above it, up to the project's own folder (the
 * nearest with a package.json) and never past it. None there: this folder's.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const hasDatabase = (folder: string) => existsSync(join(folder, '.data', 'pg', 'PG_VERSION'));

export function defaultDataDir(cwd: string): string {
  const here = resolve(cwd);
  for (let folder = here; ; folder = dirname(folder)) {
    if (hasDatabase(folder)) return join(folder, '.data');
    // The project's folder was the last to look in; the root, when there is no project.
    if (existsSync(join(folder, 'package.json')) || dirname(folder) === folder) break;
  }
  return join(here, '.data');
}
