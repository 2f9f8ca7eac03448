import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { JobStatus } from '../../workflow-safe/job-status.js';
import type { TurnResult, Usage } from '../../workflow-safe/types.js';
import { note, out, printJson } from './output.js';

/** A job's status as the CLI shows it ('continued': a run that handed over to the next one). */
export type ShownStatus = JobStatus | 'continued';

export interface JobOutcome {
  jobId: string;
  status: ShownStatus;
  answer: string | null;
  steps: number | null;
  usage: Usage | null;
  reason?: string;
  error?: string;
}

const BY_EXECUTION: Record<string, ShownStatus> = {
  RUNNING: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
  CONTINUED_AS_NEW: 'continued',
};

/** Temporal's execution status, in the CLI's words. */
export async function executionStatus(handle: WorkflowHandle): Promise<ShownStatus> {
  const d = await handle.describe();
  return BY_EXECUTION[d.status.name] ?? 'failed';
}

/** Waits for the job to end and says how it ended, failures included. */
export async function awaitOutcome(handle: WorkflowHandle): Promise<JobOutcome> {
  const jobId = handle.workflowId;
  try {
    const r = (await handle.result()) as TurnResult;
    return {
      jobId,
      status: r.status,
      answer: r.answer,
      steps: r.steps,
      usage: r.usage,
      ...(r.reason ? { reason: r.reason } : {}),
    };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const status = await executionStatus(handle);
    return { jobId, status, answer: null, steps: null, usage: null, error: err.cause?.message ?? err.message };
  }
}

/** "Job X ended with status S (reason): error" — the one way every command says it. */
export const endingLine = (o: Pick<JobOutcome, 'jobId' | 'status' | 'reason' | 'error'>) =>
  `Job ${o.jobId} ended with status ${o.status}${o.reason ? ` (${o.reason})` : ''}${o.error ? `: ${o.error}` : ''}`;

/** Prints how a job ended (JSON, its answer, or the ending line) and returns the exit code. */
export function reportOutcome(o: JobOutcome, json: boolean, answerPrefix = ''): number {
  if (json) printJson(o);
  else if (o.status === 'completed') out(`${answerPrefix}${o.answer ?? ''}`);
  else note(endingLine(o));
  return o.status === 'completed' ? 0 : 1;
}
