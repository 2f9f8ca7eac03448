import type { Policy } from './types.js';

/**
 * Shell commands allowed without approval unless a policy turns the list off: read-only
 * inspection and the usual test commands, as simple commands only (see `matchesCommand`).
 */
export const STARTER_COMMANDS: readonly string[] = [
  'pwd',
  'ls',
  'ls *',
  'cat *',
  'head *',
  'tail *',
  'wc *',
  'grep *',
  'rg *',
  'file *',
  'stat *',
  'du *',
  'tree',
  'tree *',
  'git status',
  'git status *',
  'git diff',
  'git diff *',
  'git log',
  'git log *',
  'git show *',
  'npm test',
  'npm run test',
  'npm run test:*',
  'pytest',
  'pytest *',
  'go test *',
  'cargo test',
  'cargo test *',
  'make test',
];

/** The policy of a worker that was given none. */
export function defaultPolicy(): Policy {
  return {
    source: 'built-in',
    disabled: [],
    rules: [],
    starterAllowlist: true,
    shell: {
      sandbox: 'auto',
      network: false,
      limits: { cpuSeconds: 300, memoryMb: 4096, processes: 256, fileSizeMb: 1024 },
      readOnlyPaths: [],
      passEnv: [],
    },
  };
}
