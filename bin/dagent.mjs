#!/usr/bin/env node
// The CLI. From a checkout it runs the TypeScript sources through tsx (no build step); from an
// installed package, the compiled JavaScript in dist/. tsx stays registered either way, so
// plugin modules (DAGENT_PLUGINS) may be TypeScript.
import { existsSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const fromSource = new URL('../src/cli/main.ts', import.meta.url);
const { main } = await import(
  existsSync(fromSource) ? fromSource.href : new URL('../dist/src/cli/main.js', import.meta.url).href
);
process.exit(await main(process.argv.slice(2)));
