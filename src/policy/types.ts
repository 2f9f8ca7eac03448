import type { PolicyVerdict } from '../workflow-safe/types.js';

export type { PolicyVerdict };
/** What a policy decides for one call. */
export type Decision = PolicyVerdict['decision'];

/** One rule of a policy file: the first rule that matches a call decides it. */
export interface PolicyRule {
  name: string;
  /** Tool name globs (`*` any characters). */
  tools: string[];
  /** Matches only calls of this effect. */
  effect?: 'read' | 'write';
  /** Globs over the call's `path` argument, relative to the workspace (`*` within a folder, `**` across). */
  paths?: string[];
  /** Patterns over the `shell` command (`*` any characters); only simple commands match (see `matchesCommand`). */
  commands?: string[];
  decision: Decision;
  reason?: string;
}

/** Limits on one shell command (and everything it starts). */
export interface ShellLimits {
  cpuSeconds: number;
  memoryMb: number;
  processes: number;
  fileSizeMb: number;
}

export interface ShellSettings {
  /** `auto`: bubblewrap when installed, else the limits alone (with a warning); `bwrap`: refuse to run without it; `none`: limits alone. */
  sandbox: 'auto' | 'bwrap' | 'none';
  /** The command may reach the network (inside the sandbox it has none otherwise). */
  network: boolean;
  limits: ShellLimits;
  /** Extra host folders the sandbox mounts read-only (the system folders always are). */
  readOnlyPaths: string[];
  /** Environment variables passed to commands besides PATH, HOME, locale and terminal. */
  passEnv: string[];
}

export interface Policy {
  /** Where it came from: a file path, `built-in`, or `library`. */
  source: string;
  /** Tools not offered at all. */
  disabled: string[];
  rules: PolicyRule[];
  /** Whether the starter allowlist of read-only shell commands and test commands applies. */
  starterAllowlist: boolean;
  shell: ShellSettings;
}
