import { ServiceError, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { connectTemporal, type Temporal } from '../../temporal/connect.js';
import { note } from './output.js';
import { UsageError } from './usage-error.js';

/** gRPC's NOT_FOUND, as reading an unknown workflow's history reports it. */
const GRPC_NOT_FOUND = 5;
const isNotFound = (err: unknown) =>
  (err as { code?: number } | null)?.code === GRPC_NOT_FOUND ||
  (err instanceof ServiceError && (err.cause as { code?: number } | undefined)?.code === GRPC_NOT_FOUND);

/**
 * Connects (without starting a server), runs `fn`, closes; an unknown job id (`jobId`, when the
 * command reads one job) is a usage error.
 */
export async function withTemporal<T>(fn: (t: Temporal) => Promise<T>, jobId?: string): Promise<T> {
  const t = await connectTemporal({ start: false, log: note });
  try {
    return await fn(t);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError)
      throw new UsageError(`No job with id '${err.workflowId}' on ${t.address}.`);
    if (jobId !== undefined && isNotFound(err)) throw new UsageError(`No job with id '${jobId}' on ${t.address}.`);
    throw err;
  } finally {
    await t.close();
  }
}

/** The same, for one job by its id. */
export const withJob = <T>(jobId: string, fn: (h: WorkflowHandle, t: Temporal) => Promise<T>) =>
  withTemporal((t) => fn(t.client.workflow.getHandle(jobId), t), jobId);
