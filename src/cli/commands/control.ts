import { parseArgs } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import { SA_STATUS } from '../../workflow-safe/search-attributes.js';
import type { PendingApproval } from '../../workflow-safe/types.js';
import { decideUpdate, pendingApprovalsQuery } from '../../../workflows/definitions.js';
import { awaitOutcome, executionStatus } from '../job-outcome.js';
import { note, out, printJson } from '../output.js';
import { followProgress } from '../progress.js';
import { UsageError } from '../usage-error.js';
import { withTemporal } from '../with-temporal.js';

const oneJob = (positionals: string[], usage: string) => {
  if (positionals.length !== 1) throw new UsageError(`usage: ${usage}`);
  return positionals[0]!;
};

/** `dagent watch JOB_ID`: live progress of a job started anywhere, until it ends. */
export async function watchCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  const jobId = oneJob(positionals, 'dagent watch JOB_ID [--json]');
  return withTemporal(async (t) => {
    const handle = t.client.workflow.getHandle(jobId);
    await handle.describe();
    const outcome = awaitOutcome(handle);
    await followProgress(handle, outcome, values.json ? (l) => process.stderr.write(`${l}\n`) : out);
    const r = await outcome;
    if (values.json) printJson(r);
    else if (r.status === 'completed') out(`\n${r.answer ?? ''}`);
    else note(`Job ${jobId} ended with status ${r.status}${r.reason ? ` (${r.reason})` : ''}${r.error ? `: ${r.error}` : ''}`);
    return r.status === 'completed' ? 0 : 1;
  });
}

/** `dagent cancel JOB_ID`: cancels the job; its running tools are cancelled and its locks released. */
export async function cancelCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  const jobId = oneJob(positionals, 'dagent cancel JOB_ID [--json]');
  return withTemporal(async (t) => {
    const handle = t.client.workflow.getHandle(jobId);
    const before = await executionStatus(handle);
    if (before !== 'running') throw new UsageError(`Job ${jobId} is not running (status ${before}).`);
    await handle.cancel();
    if (!values.json) note(`Cancellation requested for ${jobId}; waiting for its running tools to stop…`);
    const r = await awaitOutcome(handle);
    if (values.json) printJson({ jobId, status: r.status });
    else out(`${jobId}: ${r.status}`);
    return r.status === 'cancelled' ? 0 : 1;
  });
}

/** `dagent list`: recent jobs, newest first (from visibility). */
export async function listCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean', default: false }, limit: { type: 'string', default: '20' } } });
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a whole number of at least 1, got '${values.limit}'.`);
  return withTemporal(async (t) => {
    const jobs: Array<{ jobId: string; status: string; startedAt: string; closedAt: string | null }> = [];
    for await (const w of t.client.workflow.list({ query: "WorkflowType = 'agentTurn'" })) {
      jobs.push({ jobId: w.workflowId, status: w.typedSearchAttributes.get(SA_STATUS) ?? w.status.name.toLowerCase(), startedAt: w.startTime.toISOString(), closedAt: w.closeTime?.toISOString() ?? null });
      if (jobs.length >= limit) break;
    }
    if (values.json) printJson(jobs);
    else if (!jobs.length) note('No jobs yet.');
    else for (const j of jobs) out(`${j.jobId}  ${j.status.padEnd(17)}  started ${j.startedAt}${j.closedAt ? `  closed ${j.closedAt}` : ''}`);
    return 0;
  });
}

async function pendingOf(handle: WorkflowHandle): Promise<PendingApproval[]> {
  return handle.query(pendingApprovalsQuery);
}

/** `dagent pending`: calls waiting for approval, across running jobs. */
export async function pendingCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean', default: false } } });
  return withTemporal(async (t) => {
    const rows: Array<PendingApproval & { jobId: string }> = [];
    for await (const w of t.client.workflow.list({ query: `WorkflowType = 'agentTurn' AND ExecutionStatus = 'Running' AND ${SA_STATUS.name} = 'awaiting_approval'` })) {
      try {
        for (const p of await pendingOf(t.client.workflow.getHandle(w.workflowId))) rows.push({ jobId: w.workflowId, ...p });
      } catch (err) {
        note(`Cannot ask job ${w.workflowId} what it waits for (is a worker running?): ${(err as Error).message}`);
      }
    }
    if (values.json) printJson(rows);
    else if (!rows.length) note('No call waits for approval.');
    else {
      for (const r of rows) {
        out(`${r.jobId}  ${r.callId}  ${r.name} ${JSON.stringify(r.args)}`);
        out(`    waiting since ${new Date(r.requestedAt).toISOString()}, denied at ${new Date(r.timeoutAt).toISOString()} unless decided; args hash ${r.argsHash.slice(0, 16)}…`);
      }
    }
    return 0;
  });
}

/** `dagent approve|deny JOB_ID CALL_ID --by NAME [--reason TEXT] [--hash PREFIX]`. */
export function decideCommand(approve: boolean) {
  return async (argv: string[]): Promise<number> => {
    const verb = approve ? 'approve' : 'deny';
    const { values, positionals } = parseArgs({
      args: argv, allowPositionals: true,
      options: { by: { type: 'string' }, reason: { type: 'string' }, hash: { type: 'string' }, json: { type: 'boolean', default: false } },
    });
    if (positionals.length !== 2) throw new UsageError(`usage: dagent ${verb} JOB_ID CALL_ID --by NAME [--reason TEXT] [--hash PREFIX]`);
    if (!values.by?.trim()) throw new UsageError(`Say who decides: dagent ${verb} … --by NAME.`);
    const [jobId, callId] = positionals as [string, string];
    return withTemporal(async (t) => {
      const handle = t.client.workflow.getHandle(jobId);
      const pending = (await pendingOf(handle)).find((p) => p.callId === callId);
      if (!pending) throw new UsageError(`Call '${callId}' of job ${jobId} does not wait for approval (see \`dagent pending\`).`);
      if (values.hash && !pending.argsHash.startsWith(values.hash)) {
        throw new UsageError(`Call '${callId}' has arguments with hash ${pending.argsHash.slice(0, 16)}…, not ${values.hash}: they are not the ones you reviewed.`);
      }
      await handle.executeUpdate(decideUpdate, {
        args: [{ callId, approve, by: values.by!, argsHash: pending.argsHash, ...(values.reason ? { reason: values.reason } : {}) }],
      });
      if (values.json) printJson({ jobId, callId, decision: verb, by: values.by, args: pending.args });
      else out(`${verb === 'approve' ? 'Approved' : 'Denied'} ${pending.name} ${JSON.stringify(pending.args)} (${jobId} / ${callId}) as ${values.by}.`);
      return 0;
    });
  };
}
