import { Context } from '@temporalio/activity';
import type { ToolRegistry } from '../src/tools/registry.js';
import type { ToolRequest, ToolResult } from '../src/workflow-safe/types.js';

const HEARTBEAT_EVERY_MS = 5_000;

/**
 * The tool activity: runs one validated call. It heartbeats on its own while the handler works,
 * so a dead worker is noticed within the heartbeat timeout, and passes cancellation through.
 */
export function makeRunTool(registry: ToolRegistry) {
  return async function runTool(req: ToolRequest): Promise<ToolResult> {
    const ctx = Context.current();
    const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_EVERY_MS);
    try {
      return await registry.execute(req.call, {
        workspace: req.workspace,
        jobId: req.jobId,
        callId: req.call.id,
        idempotencyKey: `${req.jobId}:${req.call.id}`,
        fencingTokens: req.fencingTokens ?? {},
        signal: ctx.cancellationSignal,
        heartbeat: (d) => ctx.heartbeat(d),
      });
    } finally {
      clearInterval(beat);
    }
  };
}
