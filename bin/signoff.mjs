#!/usr/bin/env node
// Runs the TypeScript entry point through tsx, so `npx signoff …` works straight from a checkout.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

register();
await import(pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'bin.ts')).href);
