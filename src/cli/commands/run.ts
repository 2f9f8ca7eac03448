import { statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { agentTurn } from '../../../workflows/agent-turn.js';
import { makeRedactor } from '../../audit/redact.js';
import { modelConfigFromEnv } from '../../config.js';
import { connectTemporal, workerIsPolling, type Temporal } from '../../temporal/connect.js';
import { TOOL_FORMATS, type ToolFormat, type TurnInput } from '../../workflow-safe/types.js';
import { awaitOutcome, type JobOutcome } from '../job-outcome.js';
import { startLocalWorker, type LocalWorker } from '../local-worker.js';
import { note, out, printJson } from '../output.js';
import { followProgress } from '../progress.js';
import { UsageError } from '../usage-error.js';
import { parseDuration } from './jobs-search.js';

export const RUN_USAGE = `dagent run "<task>" [--workspace DIR] [--model NAME] [--max-steps N] [--format native|markdown|xml|react|line] [--serial-writes]
             [--max-tokens N] [--deadline 30m] [--approve-tools shell,write_file] [--approval-timeout 24h] [--id JOB_ID] [--detach] [--json]`;

export function newJobId(prefix = 'job'): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${prefix}-${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a whole number of at least 1, got '${value}'.`);
  return n;
}

function workspaceDir(value: string | undefined): string {
  const dir = path.resolve(value ?? process.cwd());
  let ok = false;
  try { ok = statSync(dir).isDirectory(); } catch { ok = false; }
  if (!ok) throw new UsageError(`--workspace ${dir} is not an existing folder.`);
  return dir;
}

/**
 * Makes sure a worker serves the task queue: a worker already polling, or one inside this
 * process (stopped by the caller). A detached job only gets a warning: it waits for a worker.
 */
export async function ensureWorker(t: Temporal, o: { detach: boolean; offlineQueue?: string }): Promise<LocalWorker | undefined> {
  if (o.offlineQueue) return startLocalWorker(t, { taskQueue: o.offlineQueue, forceOffline: true, log: note });
  if (!(await workerIsPolling(t))) {
    if (o.detach) note(`No worker polls task queue '${t.config.taskQueue}' yet: the job waits until one does (start one with \`dagent up\`).`);
    else return startLocalWorker(t, { taskQueue: t.config.taskQueue, log: note });
  } else if (!modelConfigFromEnv()) {
    note(`Using the worker already polling '${t.config.taskQueue}' (and whatever model it was started with).`);
  }
  return undefined;
}

export interface StartJobOptions {
  input: TurnInput;
  jobId: string;
  detach: boolean;
  json: boolean;
  /** Use a worker in this process, with the offline demo model, on this task queue. */
  offlineQueue?: string;
}

/** Starts a job and, unless detached, follows it to the end. Returns the process exit code. */
export async function startJob(o: StartJobOptions): Promise<{ code: number; outcome?: JobOutcome; temporal: Temporal }> {
  const t = await connectTemporal({ start: true, log: note });
  const taskQueue = o.offlineQueue ?? t.config.taskQueue;
  const local = await ensureWorker(t, { detach: o.detach, ...(o.offlineQueue ? { offlineQueue: o.offlineQueue } : {}) });
  try {
    let handle;
    try {
      handle = await t.client.workflow.start<typeof agentTurn>('agentTurn', {
        taskQueue,
        workflowId: o.jobId,
        args: [o.input],
        // A job id names one job for good: never reuse it, even after the job closed.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) {
        throw new UsageError(`A job with id '${o.jobId}' already exists. Choose another --id, or look at it with \`dagent status ${o.jobId}\`.`);
      }
      throw err;
    }
    if (!o.json) note(`Job ${o.jobId} started on ${t.address} (task queue '${taskQueue}').`);
    if (o.detach) {
      if (o.json) printJson({ jobId: o.jobId, status: 'running' });
      else out(o.jobId);
      return { code: 0, temporal: t };
    }
    const outcome = awaitOutcome(handle);
    if (!o.json) await followProgress(handle, outcome, out);
    const result = await outcome;
    if (o.json) printJson(result);
    else if (result.status === 'completed') out(`\n${result.answer ?? ''}`);
    else note(`Job ${o.jobId} ended with status ${result.status}${result.reason ? ` (${result.reason})` : ''}${result.error ? `: ${result.error}` : ''}`);
    return { code: result.status === 'completed' ? 0 : 1, outcome: result, temporal: t };
  } finally {
    await local?.stop();
  }
}

export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      workspace: { type: 'string', short: 'w' },
      model: { type: 'string', short: 'm' },
      'max-steps': { type: 'string' },
      'serial-writes': { type: 'boolean', default: false },
      format: { type: 'string', short: 'f' },
      'max-tokens': { type: 'string' },
      deadline: { type: 'string' },
      'approve-tools': { type: 'string' },
      'approval-timeout': { type: 'string' },
      id: { type: 'string' },
      detach: { type: 'boolean', short: 'd', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const task = positionals.join(' ').trim();
  if (!task) throw new UsageError(`Give the task to do.\nusage: ${RUN_USAGE}`);
  const maxSteps = positiveInt(values['max-steps'], '--max-steps');
  const format = values.format as ToolFormat | undefined;
  if (format !== undefined && !TOOL_FORMATS.includes(format)) {
    throw new UsageError(`--format must be one of ${TOOL_FORMATS.join(', ')}; got '${format}'.`);
  }
  const input: TurnInput = {
    task: makeRedactor()(task), // nothing secret-looking enters a workflow input
    workspace: workspaceDir(values.workspace),
    ...(values.model ? { model: values.model } : {}),
    ...(maxSteps ? { maxSteps } : {}),
    ...(values['serial-writes'] ? { serialWrites: true } : {}),
    ...(format && format !== 'native' ? { toolFormat: format } : {}),
    ...(values['max-tokens'] ? { maxTokens: positiveInt(values['max-tokens'], '--max-tokens')! } : {}),
    ...(values.deadline ? { deadlineMs: parseDuration(values.deadline, '--deadline') } : {}),
    ...(values['approve-tools'] ? { requireApproval: values['approve-tools'].split(',').map((x) => x.trim()).filter(Boolean) } : {}),
    ...(values['approval-timeout'] ? { approvalTimeoutMs: parseDuration(values['approval-timeout'], '--approval-timeout') } : {}),
  };
  const { code, temporal } = await startJob({ input, jobId: values.id ?? newJobId(), detach: values.detach, json: values.json });
  await temporal.close();
  return code;
}
