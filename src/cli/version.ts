/**
 * `signoff --version`: the version package.json gives, read where the package's root is: two
 * folders up from src/cli in a checkout, three from dist/src/cli in the image (which copies
 * package.json beside dist/). Light on purpose: it answers before anything is loaded or started.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageVersion(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, '..', '..', 'package.json'), join(here, '..', '..', '..', 'package.json')];
  const file = candidates.find((path) => existsSync(path)) ?? (candidates[0] as string);
  const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
  if (typeof version !== 'string') throw new Error(`${file} names no version`);
  return version;
}
