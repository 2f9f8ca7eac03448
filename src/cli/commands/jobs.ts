import { parseArgs } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import { awaitOutcome, executionStatus } from '../job-outcome.js';
import { note, out, printJson } from '../output.js';
import { UsageError } from '../usage-error.js';
import { withTemporal } from '../with-temporal.js';

function jobArgs(argv: string[], command: string) {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  const jobId = positionals[0];
  if (!jobId || positionals.length > 1) throw new UsageError(`usage: dagent ${command} JOB_ID [--json]`);
  return { jobId, json: values.json };
}

const withJob = <T>(jobId: string, fn: (h: WorkflowHandle) => Promise<T>) => withTemporal((t) => fn(t.client.workflow.getHandle(jobId)));

/** `dagent status JOB_ID`: where a job is, without waiting. */
export async function statusCommand(argv: string[]): Promise<number> {
  const { jobId, json } = jobArgs(argv, 'status');
  return withJob(jobId, async (handle) => {
    const d = await handle.describe();
    const status = await executionStatus(handle);
    const outcome = status === 'running' ? null : await awaitOutcome(handle);
    const info = {
      jobId,
      status: outcome?.status ?? status,
      startedAt: d.startTime.toISOString(),
      closedAt: d.closeTime?.toISOString() ?? null,
      taskQueue: d.taskQueue,
      historyEvents: d.historyLength,
      ...(outcome ? { steps: outcome.steps, answer: outcome.answer, ...(outcome.error ? { error: outcome.error } : {}) } : {}),
    };
    if (json) printJson(info);
    else {
      out(`${jobId}: ${info.status}`);
      out(`  started ${info.startedAt}${info.closedAt ? `, closed ${info.closedAt}` : ''}; ${info.historyEvents} history events; task queue '${info.taskQueue}'`);
      if (outcome?.error) out(`  error: ${outcome.error}`);
    }
    return 0;
  });
}

/** `dagent result JOB_ID`: waits for the job to end and prints its answer. */
export async function resultCommand(argv: string[]): Promise<number> {
  const { jobId, json } = jobArgs(argv, 'result');
  return withJob(jobId, async (handle) => {
    if ((await executionStatus(handle)) === 'running' && !json) note(`Job ${jobId} is still running; waiting for it to end…`);
    const outcome = await awaitOutcome(handle);
    if (json) printJson(outcome);
    else if (outcome.status === 'completed') out(outcome.answer ?? '');
    else note(`Job ${jobId} ended with status ${outcome.status}${outcome.error ? `: ${outcome.error}` : ''}`);
    return outcome.status === 'completed' ? 0 : 1;
  });
}
