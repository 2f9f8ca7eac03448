export type { Decision, Policy, PolicyRule, PolicyVerdict, ShellLimits, ShellSettings } from './types.js';
export { decide, matchesCommand, type CallFacts } from './decide.js';
export { dangerousCommand } from './dangerous.js';
export { defaultPolicy, STARTER_COMMANDS } from './defaults.js';
export { loadPolicyFile, parsePolicy, PolicyError } from './load.js';
