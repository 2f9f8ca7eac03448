import path from 'node:path';
import { dangerousCommand } from './dangerous.js';
import { globMatcher } from './glob.js';
import { STARTER_COMMANDS } from './defaults.js';
import type { Policy, PolicyRule, PolicyVerdict } from './types.js';

/** What the policy looks at in one call. */
export interface CallFacts {
  name: string;
  effect: 'read' | 'write';
  /** The arguments as validated (the schema's output). */
  args: unknown;
  /** The tool declares that every call needs a person's decision. */
  needsApproval: boolean;
  /** The workspace's real absolute path. */
  workspace: string;
}

const SHELL_META = /[;&|<>`$(){}\n\\*?[\]~!]/;

/**
 * Whether a shell command matches a pattern. A pattern without shell metacharacters matches only
 * simple commands (none of `; & | < > \` $ ( ) { } * ? [ ] ~ !` or a newline), so an allowlisted
 * `cat *` never lets `cat a; rm -rf b` or `cat $(…)` through. The pattern `*` alone matches any command.
 */
export function matchesCommand(pattern: string, command: string): boolean {
  const cmd = command.trim();
  if (pattern.trim() === '*') return true; // "any command at all", said explicitly
  const literal = pattern.replace(/\*/g, '');
  if (SHELL_META.test(cmd) && !SHELL_META.test(literal)) return false;
  return compiled(pattern, true)(cmd);
}

const cache = new Map<string, (s: string) => boolean>();
function compiled(glob: string, slashes: boolean): (s: string) => boolean {
  const key = `${slashes ? 1 : 0}${glob}`;
  let m = cache.get(key);
  if (!m) {
    m = globMatcher(glob, slashes);
    if (cache.size > 10_000) cache.clear();
    cache.set(key, m);
  }
  return m;
}

const str = (args: unknown, key: string): string | undefined => {
  const v = (args as Record<string, unknown> | null)?.[key];
  return typeof v === 'string' ? v : undefined;
};

function ruleMatches(rule: PolicyRule, f: CallFacts): boolean {
  if (!rule.tools.some((g) => compiled(g, true)(f.name))) return false;
  if (rule.effect && rule.effect !== f.effect) return false;
  if (rule.paths) {
    const p = str(f.args, 'path');
    if (p === undefined) return false;
    const rel = path.relative(f.workspace, path.resolve(f.workspace, p)) || '.';
    if (!rule.paths.some((g) => compiled(g, false)(rel))) return false;
  }
  if (rule.commands) {
    const c = str(f.args, 'command');
    if (c === undefined || !rule.commands.some((pat) => matchesCommand(pat, c))) return false;
  }
  return true;
}

/** Every word of a simple command that names a path names one inside the workspace. */
function staysInside(command: string, workspace: string): boolean {
  return command
    .split(/\s+/)
    .map((w) => w.replace(/^--?[\w-]{1,40}=/, ''))
    .every((w) => {
      if (!w || w.startsWith('-')) return true;
      if (w.startsWith('~')) return false;
      const abs = path.resolve(workspace, w);
      return abs === workspace || abs.startsWith(workspace + path.sep);
    });
}

/**
 * Decides one call: a dangerous shell command is denied whatever the rules say; then the first
 * matching rule of the policy; then the starter allowlist (shell); then the defaults — `shell`
 * and tools that declare `needsApproval` ask, everything else is allowed.
 */
export function decide(policy: Policy, f: CallFacts): PolicyVerdict {
  const command = f.name === 'shell' ? str(f.args, 'command') : undefined;
  if (command !== undefined) {
    const danger = dangerousCommand(command, f.workspace);
    if (danger) return { decision: 'deny', rule: `danger:${danger.check}`, reason: danger.reason };
  }
  for (const rule of policy.rules) {
    if (ruleMatches(rule, f))
      return { decision: rule.decision, rule: rule.name, ...(rule.reason ? { reason: rule.reason } : {}) };
  }
  if (command !== undefined && policy.starterAllowlist) {
    const hit = STARTER_COMMANDS.find((p) => matchesCommand(p, command));
    if (hit && staysInside(command, f.workspace)) return { decision: 'allow', rule: `starter:${hit}` };
  }
  if (f.needsApproval) return { decision: 'ask', rule: 'default:tool-needs-approval' };
  if (f.name === 'shell')
    return {
      decision: 'ask',
      rule: 'default:shell-asks',
      reason: 'shell commands outside the allowlist need a person',
    };
  return { decision: 'allow', rule: 'default:allow' };
}
