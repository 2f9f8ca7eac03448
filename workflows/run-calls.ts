import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  metricMeter,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import { workspaceQueue } from '../src/workflow-safe/workspace-queue.js';
import type { Activities } from '../activities/index.js';
import { preview } from '../src/workflow-safe/preview.js';
import { runDag, schedule } from '../src/workflow-safe/schedule.js';
import type { RecordedStatus } from '../src/workflow-safe/job-status.js';
import type { ProgressEvent, RunnableCall, ToolResult, TurnInput } from '../src/workflow-safe/types.js';
import { DEFAULT_APPROVAL_TIMEOUT_MS, type Approvals } from './approvals.js';
import type { LockHolder, Parked } from './lock-holder.js';
import type { LockGrant } from '../src/workflow-safe/lock-types.js';
import type { ReadCache } from './read-cache.js';

/** A parked write's activity first waits for the current holder to finish: this much longer. */
const PARKED_WAIT_MS = 5 * 60_000;

/** Idempotent tools retry freely; others run at most once and report an unknown outcome. */
function toolActivity(call: RunnableCall, parked: boolean, workspaceId: string | undefined) {
  return proxyActivities<Activities>({
    // A declared workspace's calls go to the workers that have it.
    ...(workspaceId ? { taskQueue: workspaceQueue(workflowInfo().taskQueue, workspaceId) } : {}),
    startToCloseTimeout: call.timeoutMs + (parked ? PARKED_WAIT_MS : 0),
    heartbeatTimeout: '10s', // a dead worker or a cancel is noticed within seconds
    // On cancel, wait until the tool has really stopped before its locks are released.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: call.idempotent
      ? { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 5 }
      : { maximumAttempts: 1 },
  }).runTool;
}

/** A retried write found that an earlier attempt had released its locks. */
class LockLost extends Error {}

/** How many times a call takes its locks again after LockLost before it reports an error. */
const MAX_LOCK_ROUNDS = 3;

export function failureText(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}

export interface StepContext {
  jobId: string;
  input: TurnInput;
  step: number;
  events: ProgressEvent[];
  locks: LockHolder;
  approvals: Approvals;
  /** The job's read cache; null when the job turned it off. */
  readCache: ReadCache | null;
  setStatus(status: RecordedStatus): void;
}

/**
 * Runs one step's calls: the scheduling DAG (reads at once, conflicting calls in the model's
 * order), approvals where required, cross-agent locks for writes. Returns each call's result.
 */
export async function runCalls(ctx: StepContext, runnable: RunnableCall[]): Promise<Map<string, ToolResult>> {
  const { jobId, input, step, events } = ctx;
  const now = () => Date.now();
  const results = new Map<string, ToolResult>();

  const execute = async (
    call: RunnableCall,
    grants: LockGrant[] = [],
    parked?: Parked,
    onGrant?: (g: LockGrant) => void,
  ): Promise<ToolResult> => {
    const fencingTokens = Object.fromEntries(grants.map((g) => [g.key, g.token]));
    events.push({
      kind: 'tool_start',
      at: now(),
      step,
      callId: call.id,
      name: call.name,
      args: preview(call.rawArguments),
    });
    const started = now();
    if (call.effect === 'write') ctx.readCache?.invalidate(call);
    const cache = ctx.readCache?.ask(call) ?? {};
    try {
      const result = await toolActivity(
        call,
        !!parked,
        input.workspaceId,
      )({
        jobId,
        workspace: input.workspace,
        ...(input.workspaceId ? { workspaceId: input.workspaceId } : {}),
        call: {
          id: call.id,
          name: call.name,
          args: call.args,
          ...(call.argsRef ? { argsRef: call.argsRef } : {}),
          resources: call.resources,
        },
        fencingTokens,
        ...(cache.request ? { cache: cache.request } : {}),
        ...(grants.length
          ? {
              release: grants.map((g) => ({
                key: g.key,
                requestId: g.requestId,
                token: g.token,
                waitedMs: g.waitedMs,
              })),
            }
          : {}),
        ...(parked ? { park: parked } : {}),
      });
      if (result.released)
        ctx.locks.releasedByCall([...grants.map((g) => g.requestId), ...(parked ? [parked.requestId] : [])]);
      if (result.grant) onGrant?.(result.grant);
      return ctx.readCache ? ctx.readCache.settle(call, result, cache.entry) : result;
    } catch (err) {
      if (isCancellation(err)) throw err;
      if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === 'LockLost')
        throw new LockLost(failureText(err));
      const output = call.idempotent
        ? `Error: the tool failed on every attempt: ${failureText(err)}`
        : `Error: the outcome of this call is unknown (it was not retried because '${call.name}' is not idempotent): ${failureText(err)}. Check the current state before trying again.`;
      return { callId: call.id, output, isError: true, startedAt: started, endedAt: now() };
    }
  };

  const runOne = async (call: RunnableCall): Promise<ToolResult> => {
    if (call.needsApproval || input.requireApproval?.includes(call.name)) {
      events.push({ kind: 'approval_wait', at: now(), step, callId: call.id, name: call.name });
      ctx.setStatus('awaiting_approval');
      const d = await ctx.approvals.decide(call, step, input.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS);
      if (ctx.approvals.waiting === 0) ctx.setStatus('running');
      events.push({
        kind: 'approval',
        at: now(),
        step,
        callId: call.id,
        name: call.name,
        approve: d.approve,
        by: d.by,
        ...(d.reason ? { reason: d.reason } : {}),
      });
      if (!d.approve) {
        return {
          callId: call.id,
          output: `Denied by ${d.by}${d.reason ? `: ${d.reason}` : ''}. The call did not run.`,
          isError: true,
          startedAt: now(),
          endedAt: now(),
        };
      }
    }
    const locked = call.effect === 'write' && call.resources.length > 0 && (input.locks ?? true);
    if (!locked) return execute(call);
    // A retry that found its locks released by an earlier attempt takes them again (a new round).
    const granted = (g: LockGrant) => {
      // On the worker's metrics endpoint (the SDK leaves it out of replays).
      metricMeter
        .createHistogram('dagent_lock_wait', 'int', 'ms', 'How long writes waited for their locks')
        .record(g.waitedMs);
      events.push({
        kind: 'lock_granted',
        at: now(),
        step,
        callId: call.id,
        key: g.key,
        token: g.token,
        waitedMs: g.waitedMs,
        previousHolder: g.previousHolder,
      });
    };
    for (let round = 1; ; round++) {
      events.push({ kind: 'lock_wait', at: now(), step, callId: call.id, keys: call.resources });
      try {
        return await ctx.locks.withLocks(
          call.id,
          call.resources,
          granted,
          (grants, parked) => execute(call, grants, parked, granted),
          round,
        );
      } catch (err) {
        if (!(err instanceof LockLost)) throw err;
        if (round >= MAX_LOCK_ROUNDS)
          return {
            callId: call.id,
            output: `Error: the call lost its lock ${round} times (${err.message}). Check the current state before trying again.`,
            isError: true,
            startedAt: now(),
            endedAt: now(),
          };
      }
    }
  };

  await runDag(schedule(runnable, { serialWrites: input.serialWrites ?? false }), async (i) => {
    const call = runnable[i]!;
    const result = await runOne(call);
    results.set(call.id, result);
    events.push({
      kind: 'tool_end',
      at: now(),
      step,
      callId: call.id,
      name: call.name,
      ms: result.endedAt - result.startedAt,
      isError: result.isError,
      preview: `${result.cachedFrom ? `(unchanged since ${result.cachedFrom}: not run again) ` : ''}${result.preview ?? preview(result.output)}`,
    });
  });
  return results;
}
