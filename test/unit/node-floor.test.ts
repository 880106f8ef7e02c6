/**
 * The Node.js floor: package.json's `engines` is what a person is told, so it must be no lower than
 * what any package signoff runs with asks for (below cel-js's 20.19, the quick start died with
 * "Cannot use import statement outside a module"), and an older Node.js gets a sentence, not that.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { nodeRefusal } from '../../bin/node-floor.mjs';

const root = join(import.meta.dirname, '..', '..');
const json = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8'));
const floor: string = json('package.json').engines.node;

describe('the Node.js floor', () => {
  it("is no lower than any runtime dependency's own (the lock's packages that are not dev-only)", () => {
    const packages = json('package-lock.json').packages as Record<
      string,
      { dev?: boolean; engines?: { node?: string } }
    >;
    const wider = Object.entries(packages)
      .filter(([path, p]) => path && !p.dev && p.engines?.node && !semver.subset(floor, p.engines.node))
      .map(([path, p]) => `${path} needs ${p.engines?.node}`);
    expect(wider).toEqual([]);
    // The lock's own copy of engines is package.json's.
    expect(packages['']?.engines?.node).toBe(floor);
  });

  it('turns away an older Node.js with a sentence naming the floor and the fix', () => {
    expect(nodeRefusal('v20.10.0', floor)).toBe(
      'signoff needs Node.js 20.19 or newer, and this is v20.10.0: install a current LTS (Node.js 22 or 24) and run it again.',
    );
    expect(nodeRefusal('v18.20.4', floor)).toMatch(/^signoff needs Node\.js 20\.19 or newer/);
  });

  it('lets this Node.js, the current LTS lines and their release candidates and nightlies through', () => {
    for (const version of [
      process.version,
      'v20.19.0',
      'v22.12.0',
      'v24.0.0',
      'v24.0.0-rc.1',
      'v25.0.0-nightly2026112',
    ]) {
      expect(nodeRefusal(version, floor)).toBeUndefined();
    }
  });
});
