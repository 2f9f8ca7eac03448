import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { assertTurnInput } from '../workflow-safe/turn/input.js';
import type { AgentTurnWorkflow } from '../workflow-safe/workflow-types.js';
import type { TurnInput } from '../workflow-safe/types.js';

/** A job id that is already taken (job ids name one job for good, even after it closed). */
export class JobExistsError extends Error {
  override name = 'JobExistsError';
  constructor(readonly jobId: string) {
    super(`A job with id '${jobId}' already exists.`);
  }
}

/** A fresh, readable job id: `job-20261130-081500-k3x9`. */
export function newJobId(prefix = 'job'): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${prefix}-${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

export interface StartJobOptions extends TurnInput {
  /** The task queue your agent workers poll. */
  taskQueue: string;
  /** Default: a fresh id from {@link newJobId}. */
  jobId?: string;
}

/** Starts an agent job (one `agentTurn` workflow) and returns its handle; `await handle.result()` for the answer. */
export async function startJob(client: Client, o: StartJobOptions): Promise<WorkflowHandle<AgentTurnWorkflow>> {
  const { taskQueue, jobId = newJobId(), ...input } = o;
  assertTurnInput(input); // the workflow checks too; here the caller learns before anything starts
  try {
    return await client.workflow.start<AgentTurnWorkflow>('agentTurn', {
      taskQueue,
      workflowId: jobId,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) throw new JobExistsError(jobId);
    throw err;
  }
}
