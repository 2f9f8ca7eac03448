import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { formatZodIssues } from '../tools/registry.js';

/** One MCP server a worker takes tools from: a command it starts (stdio) or a Streamable HTTP URL. */
export type McpServerConfig =
  | { name: string; command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { name: string; url: string; headers?: Record<string, string> };

// Server names go into tool names as `<server>__<tool>`: no underscores, so the split is unambiguous.
const name = z.string().regex(/^[a-zA-Z][a-zA-Z0-9-]{0,30}$/, 'letters, digits and -, starting with a letter');
const server = z.union([
  z.strictObject({
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
  }),
  z.strictObject({ url: z.url(), headers: z.record(z.string(), z.string()).optional() }),
]);
const file = z.strictObject({ servers: z.record(name, server) });

/** The servers of an MCP config file (YAML or JSON): `servers: { fs: { command: …, args: […] }, docs: { url: … } }`. */
export function loadMcpConfig(path: string): McpServerConfig[] {
  let raw: unknown;
  try {
    raw = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`Cannot read the MCP config ${path}: ${(err as Error).message}`, { cause: err });
  }
  const r = file.safeParse(raw);
  if (!r.success) throw new Error(`The MCP config ${path} is not valid: ${formatZodIssues(r.error)}.`);
  return Object.entries(r.data.servers).map(([n, s]) => ({ name: n, ...s }) as McpServerConfig);
}
