import type { Command } from 'commander';
import type { WorkflowHandle } from '@temporalio/client';
import { decideUpdate, pausedQuery, pendingApprovalsQuery, resumeUpdate } from '../../workflow-safe/messages.js';
import { SA_STATUS } from '../../workflow-safe/search-attributes.js';
import type { PendingApproval } from '../../workflow-safe/types.js';
import { handler } from '../plumbing/command.js';
import { awaitOutcome, executionStatus, reportOutcome } from '../plumbing/job-outcome.js';
import { jsonOption, parseDuration, positiveInt, positiveNumber } from '../plumbing/options.js';
import { note, out, printJson } from '../plumbing/output.js';
import { followProgress } from '../plumbing/progress.js';
import { UsageError } from '../plumbing/usage-error.js';
import { withJob, withTemporal } from '../plumbing/with-temporal.js';

const pendingOf = (handle: WorkflowHandle): Promise<PendingApproval[]> => handle.query(pendingApprovalsQuery);

/** `dagent watch|cancel|pending|approve|deny`: working with running jobs (queries and updates need a worker). */
export function registerControl(program: Command): void {
  program
    .command('watch')
    .summary("follow a job's progress until it ends")
    .argument('<jobId>')
    .addOption(jsonOption())
    .action(
      handler((jobId: string, o: { json: boolean }) =>
        withJob(jobId, async (handle) => {
          await handle.describe();
          const outcome = awaitOutcome(handle);
          await followProgress(handle, outcome, o.json ? note : out);
          return reportOutcome(await outcome, o.json, '\n');
        }),
      ),
    );

  program
    .command('cancel')
    .summary('cancel a job: running tools stop, locks are released')
    .argument('<jobId>')
    .addOption(jsonOption())
    .action(
      handler((jobId: string, o: { json: boolean }) =>
        withJob(jobId, async (handle) => {
          const before = await executionStatus(handle);
          if (before !== 'running') throw new UsageError(`Job ${jobId} is not running (status ${before}).`);
          await handle.cancel();
          if (!o.json) note(`Cancellation requested for ${jobId}; waiting for its running tools to stop…`);
          const r = await awaitOutcome(handle);
          if (o.json) printJson({ jobId, status: r.status });
          else out(`${jobId}: ${r.status}`);
          return r.status === 'cancelled' ? 0 : 1;
        }),
      ),
    );

  program
    .command('pending')
    .summary('calls waiting for approval, across running jobs')
    .addOption(jsonOption())
    .action(
      handler((o: { json: boolean }) =>
        withTemporal(async (t) => {
          const rows: Array<PendingApproval & { jobId: string }> = [];
          for await (const w of t.client.workflow.list({
            query: `WorkflowType = 'agentTurn' AND ExecutionStatus = 'Running' AND ${SA_STATUS.name} = 'awaiting_approval'`,
          })) {
            try {
              for (const p of await pendingOf(t.client.workflow.getHandle(w.workflowId)))
                rows.push({ jobId: w.workflowId, ...p });
            } catch (err) {
              note(
                `Cannot ask job ${w.workflowId} what it waits for (is a worker running?): ${(err as Error).message}`,
              );
            }
          }
          if (o.json) printJson(rows);
          else if (!rows.length) note('No call waits for approval.');
          else {
            for (const r of rows) {
              out(`${r.jobId}  ${r.callId}  ${r.name} ${JSON.stringify(r.args)}`);
              if (r.policy)
                out(`    asked by policy rule ${r.policy.rule}${r.policy.reason ? `: ${r.policy.reason}` : ''}`);
              out(
                `    waiting since ${new Date(r.requestedAt).toISOString()}, denied at ${new Date(r.timeoutAt).toISOString()} unless decided; args hash ${r.argsHash.slice(0, 16)}…`,
              );
            }
          }
          return 0;
        }),
      ),
    );

  for (const approve of [true, false]) {
    const verb = approve ? 'approve' : 'deny';
    program
      .command(verb)
      .summary(`${verb} one call that waits for approval`)
      .argument('<jobId>')
      .argument('<callId>')
      .requiredOption('--by <name>', 'who decides (recorded in the audit)')
      .option('--reason <text>', 'why (recorded in the audit, and shown to the model on a denial)')
      .option(
        '--hash <prefix>',
        'the argument hash you reviewed (from `dagent pending`): refused if the call has other arguments',
      )
      .addOption(jsonOption())
      .action(
        handler((jobId: string, callId: string, o: { by: string; reason?: string; hash?: string; json: boolean }) => {
          if (!o.by.trim()) throw new UsageError(`Say who decides: dagent ${verb} … --by NAME.`);
          if (o.hash !== undefined && !/^[0-9a-f]{8,64}$/.test(o.hash)) {
            throw new UsageError(
              '--hash takes at least the first 8 hex digits of the argument hash `dagent pending` shows.',
            );
          }
          return withJob(jobId, async (handle) => {
            const pending = (await pendingOf(handle)).find((p) => p.callId === callId);
            if (!pending)
              throw new UsageError(
                `Call '${callId}' of job ${jobId} does not wait for approval (see \`dagent pending\`).`,
              );
            if (o.hash !== undefined && !pending.argsHash.startsWith(o.hash)) {
              throw new UsageError(
                `Call '${callId}' has arguments with hash ${pending.argsHash.slice(0, 16)}…, not ${o.hash}: they are not the ones you reviewed.`,
              );
            }
            await handle.executeUpdate(decideUpdate, {
              args: [
                { callId, approve, by: o.by, argsHash: pending.argsHash, ...(o.reason ? { reason: o.reason } : {}) },
              ],
            });
            if (o.json) printJson({ jobId, callId, decision: verb, by: o.by, args: pending.args });
            else
              out(
                `${approve ? 'Approved' : 'Denied'} ${pending.name} ${JSON.stringify(pending.args)} (${jobId} / ${callId}) as ${o.by}.`,
              );
            return 0;
          });
        }),
      );
  }

  program
    .command('resume')
    .summary('continue a paused job, optionally with another model or bigger budgets')
    .argument('<jobId>')
    .option('--model <name>', 'the model from here on')
    .option('--max-tokens <n>', 'the token budget from here on (the total, counted from the start)', positiveInt)
    .option('--max-cost <usd>', 'the money budget from here on (the total, counted from the start)', positiveNumber)
    .option('--deadline <duration>', 'time allowed from now on (e.g. 30m)', parseDuration)
    .option('--compact', 'summarise older messages into one first (after a context overflow)', false)
    .option('--by <name>', 'who resumes (recorded in the audit)', process.env.USER || 'cli')
    .addOption(jsonOption())
    .action(
      handler(
        (
          jobId: string,
          o: {
            model?: string;
            maxTokens?: number;
            maxCost?: number;
            deadline?: number;
            compact: boolean;
            by: string;
            json: boolean;
          },
        ) =>
          withJob(jobId, async (handle) => {
            const paused = await handle.query(pausedQuery).catch((err: Error) => {
              throw new UsageError(
                `Cannot ask job ${jobId} whether it is paused (is a worker running?): ${err.message}`,
              );
            });
            if (!paused) throw new UsageError(`Job ${jobId} is not paused (see \`dagent status ${jobId}\`).`);
            const r = await handle.executeUpdate(resumeUpdate, {
              args: [
                {
                  by: o.by,
                  ...(o.model ? { model: o.model } : {}),
                  ...(o.maxTokens ? { maxTokens: o.maxTokens } : {}),
                  ...(o.maxCost ? { maxCostUsd: o.maxCost } : {}),
                  ...(o.compact ? { compact: true } : {}),
                  ...(o.deadline ? { deadlineMs: o.deadline } : {}),
                },
              ],
            });
            if (o.json) printJson({ jobId, resumedAtStep: r.step, pausedFor: paused });
            else out(`Resumed ${jobId} at step ${r.step} (it was paused: ${paused.kind}: ${paused.reason}).`);
            return 0;
          }),
      ),
    );
}
