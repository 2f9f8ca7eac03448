import { QUIET_BEAT_EVERY_MS } from './heartbeat.js';
import { trace } from '@opentelemetry/api';
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Redactor } from '../src/audit/redact.js';
import { awaitGrant, ensureStillHeld, releaseNow, renewWhileRunning } from './lock-release.js';
import { fromHistory, TOOL_OUTPUT_INLINE_LIMIT, toHistory, type ContentStore } from '../src/content/store.js';
import type { ToolRegistry } from '../src/tools/registry.js';
import { noMetrics, type AgentMetrics } from '../src/worker/metrics.js';
import { fingerprint, sameFingerprint } from '../src/tools/fingerprint.js';
import { truncateForModel } from '../src/tools/truncate.js';
import { preview } from '../src/workflow-safe/preview.js';
import type { ToolRequest, ToolResult } from '../src/workflow-safe/types.js';

/**
 * The tool activity: runs one validated call. It heartbeats on its own while the handler works,
 * so a dead worker is noticed within the heartbeat timeout, and passes cancellation through.
 */
export function makeRunTool(
  registry: ToolRegistry,
  redact: Redactor,
  store: ContentStore,
  client: Client,
  metrics: AgentMetrics = noMetrics,
) {
  return async function runTool(req: ToolRequest): Promise<ToolResult> {
    const ctx = Context.current();
    trace
      .getActiveSpan()
      ?.setAttributes({ 'dagent.job_id': req.jobId, 'dagent.call_id': req.call.id, 'dagent.tool': req.call.name });
    const beat = setInterval(() => ctx.heartbeat(), QUIET_BEAT_EVERY_MS);
    try {
      const call = req.call.argsRef
        ? { ...req.call, args: JSON.parse(await fromHistory(store, req.call.argsRef)) as unknown }
        : req.call;
      const ws = await registry.workspaceFor(req);
      if (!ws.onThisHost)
        throw ApplicationFailure.create({
          type: 'WorkspaceNotHere',
          message: `This worker does not have workspace '${ws.workspaceId}' (it declares ${[...registry.workspaces.keys()].join(', ') || 'none'}).`,
        });
      // A cacheable read: unchanged files since an identical earlier read answer from it, unrun.
      const before = req.cache ? await fingerprint(ws, req.cache.keys) : null;
      const earlier = req.cache?.ifUnchanged;
      if (earlier && sameFingerprint(earlier.fingerprint, before)) {
        const now = Date.now();
        metrics.toolCall(req.call.name, 'cached', 0);
        return {
          callId: req.call.id,
          output: '',
          isError: false,
          startedAt: now,
          endedAt: now,
          cachedFrom: earlier.from,
        };
      }
      // A parked write waits for its grant here; a granted one checks, when retried, that it still holds it.
      const waitFrom = Date.now();
      const grant = req.park ? await awaitGrant(client, req.park, ctx.cancellationSignal) : undefined;
      if (grant) traceLockWait(grant.key, grant.token, waitFrom, Date.now());
      for (const r of req.release ?? []) if (r.waitedMs) traceLockWait(r.key, r.token, waitFrom - r.waitedMs, waitFrom);
      const held = grant ? [{ key: grant.key, requestId: grant.requestId, token: grant.token }] : req.release;
      if (!grant && held?.length && ctx.info.attempt > 1) await ensureStillHeld(client, held);
      const stopRenewing = grant ? renewWhileRunning(client, grant) : () => {};
      const result = await registry
        .execute(
          call,
          {
            workspace: ws.workspace,
            jobId: req.jobId,
            callId: req.call.id,
            idempotencyKey: `${req.jobId}:${req.call.id}`,
            fencingTokens: { ...req.fencingTokens, ...(grant ? { [grant.key]: grant.token } : {}) },
            signal: ctx.cancellationSignal,
            heartbeat: (d) => ctx.heartbeat(d),
            policy: registry.policy,
          },
          // Keys planned by text (a declared workspace, planned on any host) are checked against the
          // real paths here; an undeclared one was planned where its folder is, real paths already.
          req.workspaceId ? ws : undefined,
        )
        .finally(stopRenewing);
      metrics.toolCall(req.call.name, result.isError ? 'error' : 'ok', result.endedAt - result.startedAt);
      // The write is done: the next holder may go now, before this result is even recorded.
      const released = held?.length ? await releaseNow(client, held) : false;
      const output = truncateForModel(redact(result.output));
      // Cached only if the files did not change while the tool read them.
      const after = before && !result.isError ? await fingerprint(ws, req.cache!.keys) : null;
      return {
        ...result,
        output: await toHistory(store, output, TOOL_OUTPUT_INLINE_LIMIT),
        preview: preview(output),
        ...(before && sameFingerprint(before, after) ? { fingerprint: before } : {}),
        ...(released ? { released } : {}),
        ...(grant ? { grant } : {}),
      };
    } catch (err) {
      metrics.toolCall(req.call.name, 'failed', 0);
      // Report a cancelled tool as cancelled (not failed), so the history says what happened.
      if (ctx.cancellationSignal.aborted)
        throw new CancelledFailure(`tool '${req.call.name}' stopped: the job was cancelled`);
      throw err;
    } finally {
      clearInterval(beat);
    }
  };
}

/** A lock wait as a span of the call's trace (when tracing is on). */
function traceLockWait(key: string, token: number, from: number, to: number): void {
  trace
    .getTracer('durable-agent')
    .startSpan('lock wait', { startTime: from, attributes: { 'dagent.lock_key': key, 'dagent.lock_token': token } })
    .end(to);
}
