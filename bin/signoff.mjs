#!/usr/bin/env node
// `npx signoff …`: from a checkout, the TypeScript entry point through tsx; where there is no
// source (the Docker image ships the compiled build), the compiled entry point.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { thisNodeRefusal } from './node-floor.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const refusal = thisNodeRefusal(join(root, 'package.json'));
if (refusal) {
  process.stderr.write(`${refusal}\n`);
  process.exit(1);
}
const source = join(root, 'src', 'bin.ts');
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(source).href);
} else {
  await import(pathToFileURL(join(root, 'dist', 'src', 'bin.js')).href);
}
