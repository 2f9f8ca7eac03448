import type { Command } from 'commander';
import { handler } from '../plumbing/command.js';
import { awaitOutcome, executionStatus, reportOutcome } from '../plumbing/job-outcome.js';
import { jsonOption } from '../plumbing/options.js';
import { note, out, printJson } from '../plumbing/output.js';
import { withJob } from '../plumbing/with-temporal.js';

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
          const info = {
            jobId,
            status: outcome?.status ?? status,
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
