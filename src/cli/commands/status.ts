import type { Command } from 'commander';
import { handler } from '../plumbing/command.js';
import { awaitOutcome, executionStatus, reportOutcome } from '../plumbing/job-outcome.js';
import { jsonOption } from '../plumbing/options.js';
import { note, out, printJson } from '../plumbing/output.js';
import { withJob } from '../plumbing/with-temporal.js';
import { describeWait, workspaceWait } from '../../client/workspace-wait.js';
import { pausedQuery } from '../../workflow-safe/messages.js';
import { SA_STATUS } from '../../workflow-safe/search-attributes.js';
import { PAUSE_HINTS } from '../../workflow-safe/turn/pause.js';
import type { PauseKind } from '../../workflow-safe/types.js';

/** `dagent status JOB_ID` and `dagent result JOB_ID`. */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .summary('where a job is, without waiting')
    .argument('<jobId>')
    .addOption(jsonOption())
    .action(
      handler((jobId: string, o: { json: boolean }) =>
        withJob(jobId, async (handle) => {
          const d = await handle.describe();
          const status = await executionStatus(handle);
          const outcome = status === 'running' ? null : await awaitOutcome(handle);
          const recorded = d.searchAttributes?.[SA_STATUS.name]?.[0];
          // Why a paused job waits (a worker answers the query; without one, the status alone).
          const paused =
            status === 'running' && recorded === 'paused' ? await handle.query(pausedQuery).catch(() => null) : null;
          const wait = status === 'running' ? await workspaceWait(handle.client, handle).catch(() => null) : null;
          const info = {
            jobId,
            status: outcome?.status ?? (recorded === 'paused' ? 'paused' : status),
            ...(paused ? { paused } : {}),
            ...(wait ? { workspaceWait: wait } : {}),
            startedAt: d.startTime.toISOString(),
            closedAt: d.closeTime?.toISOString() ?? null,
            taskQueue: d.taskQueue,
            historyEvents: d.historyLength,
            ...(outcome
              ? { steps: outcome.steps, answer: outcome.answer, ...(outcome.error ? { error: outcome.error } : {}) }
              : {}),
          };
          if (o.json) printJson(info);
          else {
            out(`${jobId}: ${info.status}`);
            out(
              `  started ${info.startedAt}${info.closedAt ? `, closed ${info.closedAt}` : ''}; ${info.historyEvents} history events; task queue '${info.taskQueue}'`,
            );
            if (outcome?.error) out(`  error: ${outcome.error}`);
            for (const line of wait ? describeWait(wait) : []) out(line);
            if (paused) {
              out(
                `  paused at step ${paused.step} since ${new Date(paused.since).toISOString()} (${paused.kind}): ${paused.reason}`,
              );
              out(`  ${PAUSE_HINTS[paused.kind as PauseKind] ?? ''}`);
            }
          }
          return 0;
        }),
      ),
    );

  program
    .command('result')
    .summary('wait for a job to end and print its answer')
    .argument('<jobId>')
    .addOption(jsonOption())
    .action(
      handler((jobId: string, o: { json: boolean }) =>
        withJob(jobId, async (handle) => {
          if ((await executionStatus(handle)) === 'running' && !o.json)
            note(`Job ${jobId} is still running; waiting for it to end…`);
          return reportOutcome(await awaitOutcome(handle), o.json);
        }),
      ),
    );
}
