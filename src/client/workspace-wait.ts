import { defaultPayloadConverter, type WorkflowClient, type WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { TurnInput } from '../workflow-safe/types.js';
import { workspaceQueue } from '../workflow-safe/workspace-queue.js';

const { temporal } = proto;
type Service = Pick<WorkflowClient, 'workflowService' | 'options'>;

// Why a job's tool call has not started: a declared workspace's calls wait in their own task queue
// until a worker that has the workspace takes them. When that host died, `dagent status` says so.

export interface WorkspaceWait {
  workspaceId: string;
  taskQueue: string;
  /** Tool calls scheduled and not yet taken by a worker. */
  waitingCalls: number;
  /** Why the last attempt of a waiting call failed (a worker that died: its heartbeat timed out). */
  lastFailure?: string;
  /** How long the longest-waiting of them has waited (a live worker with the workspace takes a call at once). */
  waitingSeconds: number;
  /** Workers that polled the queue lately, with how long ago (a dead host's stays listed for a few minutes). */
  pollers: Array<{ identity: string; secondsAgo: number }>;
}

/** The declared workspace a running job's tool calls wait for, or null (no declared workspace, nothing waiting). */
export async function workspaceWait(
  client: Service,
  handle: WorkflowHandle,
  now = Date.now(),
): Promise<WorkspaceWait | null> {
  const d = await handle.describe();
  const waiting = (d.raw.pendingActivities ?? []).filter(
    (a) =>
      a.activityType?.name === 'runTool' &&
      a.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED,
  );
  if (!waiting.length) return null;
  const workspaceId = (await runInput(client, handle.workflowId, d.runId))?.workspaceId;
  if (!workspaceId) return null;
  const taskQueue = workspaceQueue(d.taskQueue, workspaceId);
  const res = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  const pollers = (res.pollers ?? []).map((p) => ({
    identity: p.identity ?? '?',
    secondsAgo: Math.max(0, Math.round((now - Number(p.lastAccessTime?.seconds ?? 0) * 1000) / 1000)),
  }));
  const lastFailure = waiting.find((a) => a.lastFailure?.message)?.lastFailure?.message ?? undefined;
  const since = Math.min(...waiting.map((a) => Number(a.scheduledTime?.seconds ?? now / 1000) * 1000));
  return {
    workspaceId,
    taskQueue,
    waitingCalls: waiting.length,
    ...(lastFailure ? { lastFailure } : {}),
    waitingSeconds: Math.max(0, Math.round((now - since) / 1000)),
    pollers,
  };
}

/** The input of a run (its first event), where the workspace id is. */
async function runInput(client: Service, workflowId: string, runId: string): Promise<TurnInput | null> {
  const page = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId, runId },
    maximumPageSize: 1,
  });
  const payload = page.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  if (!payload) return null;
  try {
    return defaultPayloadConverter.fromPayload<TurnInput>(payload);
  } catch {
    return null;
  }
}

/** The lines `dagent status` prints about a wait. */
export function describeWait(w: WorkspaceWait): string[] {
  const calls = `${w.waitingCalls} tool call${w.waitingCalls === 1 ? '' : 's'}`;
  const seen = w.pollers.length
    ? `; last polled by ${w.pollers.map((p) => `${p.identity} ${p.secondsAgo} s ago`).join(', ')}`
    : '; no worker has polled it';
  return [
    `  waiting ${w.waitingSeconds} s for a worker with workspace '${w.workspaceId}': ${calls} queued on '${w.taskQueue}'${seen}.`,
    ...(w.lastFailure ? [`  last attempt: ${w.lastFailure}`] : []),
    `  A host that has it takes them: dagent worker --workspace ${w.workspaceId}=DIR`,
  ];
}
