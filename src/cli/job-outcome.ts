import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { TurnResult, Usage } from '../workflow-safe/types.js';

export type JobStatus = 'running' | 'completed' | 'max_steps' | 'token_budget' | 'time_budget' | 'no_progress' | 'failed' | 'cancelled' | 'terminated' | 'timed_out' | 'continued';

export interface JobOutcome {
  jobId: string;
  status: JobStatus;
  answer: string | null;
  steps: number | null;
  usage: Usage | null;
  reason?: string;
  error?: string;
}

const CLOSED: Record<string, JobStatus> = {
  RUNNING: 'running', COMPLETED: 'completed', FAILED: 'failed', CANCELLED: 'cancelled',
  TERMINATED: 'terminated', TIMED_OUT: 'timed_out', CONTINUED_AS_NEW: 'continued',
};

/** Temporal's execution status, in the CLI's words. */
export async function executionStatus(handle: WorkflowHandle): Promise<JobStatus> {
  const d = await handle.describe();
  return CLOSED[d.status.name] ?? 'failed';
}

/** Waits for the job to end and says how it ended, failures included. */
export async function awaitOutcome(handle: WorkflowHandle): Promise<JobOutcome> {
  const jobId = handle.workflowId;
  try {
    const r = (await handle.result()) as TurnResult;
    return { jobId, status: r.status, answer: r.answer, steps: r.steps, usage: r.usage, ...(r.reason ? { reason: r.reason } : {}) };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const status = await executionStatus(handle);
    const cause = err.cause;
    return { jobId, status, answer: null, steps: null, usage: null, error: cause?.message ?? err.message };
  }
}
