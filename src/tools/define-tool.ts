import type { z } from 'zod';
import type { Policy } from '../policy/types.js';
import type { Effect } from '../workflow-safe/types.js';
import type { ResourceContext } from './workspace.js';

/** What a tool handler gets besides its arguments. */
export interface ToolContext {
  workspace: string;
  jobId: string;
  callId: string;
  /** `jobId:callId` — stable across retries, for downstream de-duplication. */
  idempotencyKey: string;
  /** Fencing token per resource key this call holds a lock on; pass it to storage that checks it. */
  fencingTokens: Record<string, number>;
  signal: AbortSignal;
  heartbeat(details?: unknown): void;
  /** The worker's policy (read-only): e.g. the shell's sandbox settings. */
  policy: Readonly<Policy>;
}

export interface ToolDefinition<S extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  input: S;
  effect: Effect;
  /**
   * Resource keys the call touches. A write with none is a barrier (conflicts with everything).
   * Name files with `fileResource(ctx, path)`: the same key on every host.
   */
  resources?: (args: z.output<S>, ctx: ResourceContext) => string[] | Promise<string[]>;
  /** Safe to run again with the same arguments. Default: true for reads, false for writes. */
  idempotent?: boolean;
  /** Every call needs a human decision (approve/deny) before it runs. */
  needsApproval?: boolean;
  /** Per-attempt time limit. Default 60 s. */
  timeoutMs?: number;
  execute(args: z.output<S>, ctx: ToolContext): Promise<string> | string;
}

const NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

export function defineTool<S extends z.ZodObject>(def: ToolDefinition<S>): ToolDefinition<S> {
  if (!NAME.test(def.name)) {
    throw new Error(`Tool name '${def.name}' is invalid: use letters, digits, '_' or '-', starting with a letter.`);
  }
  if (def.effect !== 'read' && def.effect !== 'write') {
    throw new Error(`Tool '${def.name}': effect must be 'read' or 'write', got '${String(def.effect)}'.`);
  }
  return def;
}

/** A mistake the model can fix; the message goes back to it as the tool result. */
export class ToolInputError extends Error {
  override name = 'ToolInputError';
}
