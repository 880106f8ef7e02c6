// The Node.js versions signoff runs on are the ones package.json's `engines` names (the floor its
// dependencies set: below it, one of them fails at load with an error about ES modules that says
// nothing of the version). npm only warns about `engines`, so this says it before anything loads.
import { readFileSync } from 'node:fs';
import semver from 'semver';

/** What to tell a person whose Node.js is outside `engines.node`, or nothing when it is inside. */
export function nodeRefusal(version, range) {
  // A nightly or a release candidate of a version inside the range is inside it too.
  if (semver.satisfies(version, range, { includePrerelease: true })) return undefined;
  return `signoff needs Node.js ${range.replace(/^>=\s*/, '')} or newer, and this is ${version}: install a current LTS (Node.js 22 or 24) and run it again.`;
}

/** The same, for this process and the package.json at `packageFile`. */
export function thisNodeRefusal(packageFile) {
  const { engines } = JSON.parse(readFileSync(packageFile, 'utf8'));
  return nodeRefusal(process.version, engines.node);
}
