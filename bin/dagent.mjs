#!/usr/bin/env node
// The CLI runs its TypeScript sources directly through tsx (no build step).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exit(await main(process.argv.slice(2)));
