import { z } from 'zod';
import { defineTool, ToolInputError, type ToolDefinition } from '../tools/define-tool.js';

/** A tool as an MCP server lists it. */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean };
}

/** What calling a tool returns, as far as we read it. */
export interface McpCallResult {
  content?: Array<{
    type: string;
    text?: string;
    mimeType?: string;
    data?: string;
    resource?: { uri?: string; text?: string };
  }>;
  structuredContent?: unknown;
  isError?: boolean;
}

export type CallMcp = (server: string, tool: string, args: unknown, signal: AbortSignal) => Promise<McpCallResult>;

/** `<server>__<tool>`, in the characters a tool name may hold (at most 64). */
export const mcpToolName = (server: string, tool: string) =>
  `${server}__${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`.slice(0, 64);

/** The text a model reads of a tool's result: text as is, other content described. */
export function resultText(r: McpCallResult): string {
  const parts = (r.content ?? []).map((c) => {
    if (c.type === 'text') return c.text ?? '';
    if (c.type === 'resource') return c.resource?.text ?? `[resource ${c.resource?.uri ?? ''}]`;
    return `[${c.type}${c.mimeType ? ` ${c.mimeType}` : ''}${c.data ? `, ${Math.round((c.data.length * 3) / 4)} bytes` : ''}]`;
  });
  if (!parts.length && r.structuredContent !== undefined) return JSON.stringify(r.structuredContent);
  return parts.join('\n');
}

/** The tool's input schema as zod (validation and the schema the model sees); any object when it cannot be read. */
function inputOf(schema: Record<string, unknown>): z.ZodObject {
  try {
    const s = z.fromJSONSchema({ type: 'object', ...schema } as Parameters<typeof z.fromJSONSchema>[0]);
    if (s instanceof z.ZodObject) return s;
  } catch {
    /* a schema zod cannot read: accept any object, the server validates */
  }
  return z.looseObject({});
}

/**
 * An MCP tool as one of ours. Its annotations decide how it runs: `readOnlyHint` → a read (fans
 * out, retried); `destructiveHint` → a write that needs approval (unless a policy allows it);
 * `idempotentHint` → retried freely; anything else → a write with no resource key (a barrier),
 * run at most once.
 */
export function mcpToolDefinition(server: string, t: McpTool, call: CallMcp): ToolDefinition {
  const a = t.annotations ?? {};
  const read = a.readOnlyHint === true;
  return defineTool({
    name: mcpToolName(server, t.name),
    description: `[MCP ${server}] ${t.description ?? t.title ?? t.name}`,
    input: inputOf(t.inputSchema ?? {}),
    effect: read ? 'read' : 'write',
    idempotent: read || a.idempotentHint === true,
    needsApproval: !read && a.destructiveHint === true,
    timeoutMs: 120_000,
    async execute(args, ctx) {
      const r = await call(server, t.name, args, ctx.signal);
      const text = resultText(r);
      if (r.isError) throw new ToolInputError(text || `${t.name} failed`);
      return text;
    },
  });
}
