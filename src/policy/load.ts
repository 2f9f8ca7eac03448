import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { defaultPolicy } from './defaults.js';
import type { Policy, PolicyRule } from './types.js';

/** A policy that cannot be used; the message names the file, the line and what is wrong. */
export class PolicyError extends Error {
  override name = 'PolicyError';
}

const oneOrMany = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);
const list = (v: string | string[] | undefined) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

const ruleSchema = z.strictObject({
  name: z.string().min(1).max(100).optional(),
  tool: oneOrMany,
  effect: z.enum(['read', 'write']).optional(),
  path: oneOrMany.optional(),
  command: oneOrMany.optional(),
  decision: z.enum(['allow', 'deny', 'ask']),
  reason: z.string().max(500).optional(),
});

const fileSchema = z.strictObject({
  version: z.literal(1),
  disabled: z.array(z.string().min(1)).optional(),
  starter_allowlist: z.boolean().optional(),
  rules: z.array(ruleSchema).optional(),
  shell: z
    .strictObject({
      sandbox: z.enum(['auto', 'bwrap', 'none']).optional(),
      network: z.boolean().optional(),
      read_only_paths: z.array(z.string().startsWith('/', 'must be an absolute path')).optional(),
      pass_env: z
        .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be an environment variable name'))
        .optional(),
      limits: z
        .strictObject({
          cpu_seconds: z.number().int().min(1).max(86_400).optional(),
          memory_mb: z.number().int().min(16).max(1_048_576).optional(),
          processes: z.number().int().min(1).max(100_000).optional(),
          file_size_mb: z.number().int().min(1).max(1_048_576).optional(),
        })
        .optional(),
    })
    .optional(),
});

/**
 * Reads a policy from YAML text. Any mistake — YAML syntax, an unknown key, a wrong value — is a
 * PolicyError naming `source:line:column` and the reason; nothing is half-applied.
 */
export function parsePolicy(text: string, source: string): Policy {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined) => {
    const p = lines.linePos(offset ?? 0);
    return `${source}:${p.line}:${p.col}`;
  };
  if (doc.errors.length) {
    const e = doc.errors[0]!;
    throw new PolicyError(`${at(e.pos[0])}: ${e.message.split('\n')[0]}`);
  }
  const parsed = fileSchema.safeParse(doc.toJS() ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // The deepest node of the issue's path that exists in the document gives the line.
    let node: unknown = undefined;
    for (let n = issue.path.length; n >= 0 && !node; n--) {
      node = n === 0 ? doc.contents : doc.getIn(issue.path.slice(0, n) as (string | number)[], true);
    }
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    const where = issue.path.length ? issue.path.join('.') : '(top level)';
    throw new PolicyError(`${at(range?.[0])}: ${where}: ${issue.message}`);
  }
  const f = parsed.data;
  const base = defaultPolicy();
  const rules: PolicyRule[] = (f.rules ?? []).map((r, i) => {
    const line = lines.linePos(
      (doc.getIn(['rules', i], true) as { range?: [number, number, number] } | undefined)?.range?.[0] ?? 0,
    ).line;
    return {
      name: r.name ?? `${source}:${line}`,
      tools: list(r.tool)!,
      ...(r.effect ? { effect: r.effect } : {}),
      ...(r.path ? { paths: list(r.path)! } : {}),
      ...(r.command ? { commands: list(r.command)! } : {}),
      decision: r.decision,
      ...(r.reason ? { reason: r.reason } : {}),
    };
  });
  const l = f.shell?.limits ?? {};
  return {
    source,
    disabled: f.disabled ?? [],
    rules,
    starterAllowlist: f.starter_allowlist ?? true,
    shell: {
      sandbox: f.shell?.sandbox ?? base.shell.sandbox,
      network: f.shell?.network ?? base.shell.network,
      readOnlyPaths: f.shell?.read_only_paths ?? [],
      passEnv: f.shell?.pass_env ?? [],
      limits: {
        cpuSeconds: l.cpu_seconds ?? base.shell.limits.cpuSeconds,
        memoryMb: l.memory_mb ?? base.shell.limits.memoryMb,
        processes: l.processes ?? base.shell.limits.processes,
        fileSizeMb: l.file_size_mb ?? base.shell.limits.fileSizeMb,
      },
    },
  };
}

/** Reads a policy file; a missing or unreadable file is a PolicyError too. */
export function loadPolicyFile(file: string): Policy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new PolicyError(`Cannot read the policy file ${file}: ${(err as Error).message}`);
  }
  return parsePolicy(text, file);
}
