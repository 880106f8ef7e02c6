/** What to tell a person whose Node.js is outside `range`, or undefined when it is inside. */
export function nodeRefusal(version: string, range: string): string | undefined;
/** The same, for this process and the package.json at `packageFile`. */
export function thisNodeRefusal(packageFile: string): string | undefined;
