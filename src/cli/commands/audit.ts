import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { recordsToScenario } from '../../audit/scenario-export.js';
import { formatTimeline } from '../../audit/timeline.js';
import { fetchJobRuns, readAudit } from '../../client/audit.js';
import { workerSettingsFromEnv } from '../../config.js';
import { cachedWorkflowBundle } from '../../worker/bundle-cache.js';
import { installRuntime } from '../../worker/runtime.js';
import { handler } from '../plumbing/command.js';
import { jsonOption } from '../plumbing/options.js';
import { note, out } from '../plumbing/output.js';
import { UsageError } from '../plumbing/usage-error.js';
import { withTemporal } from '../plumbing/with-temporal.js';

/** Replays a history against the current workflow code; throws on a determinism violation. */
export async function replayHistory(history: unknown, name: string, workflowId?: string): Promise<void> {
  installRuntime();
  const codePath = workerSettingsFromEnv().workflowBundle ?? (await cachedWorkflowBundle());
  await Worker.runReplayHistory({ workflowBundle: { codePath }, replayName: name }, history, workflowId);
}

/** `dagent audit|export|replay`: a job's history, read from the server (no worker needed). */
export function registerAudit(program: Command): void {
  program
    .command('audit')
    .summary('every model call and tool call of a job, from its history')
    .argument('<jobId>')
    .addOption(jsonOption())
    .description(
      'Every model call, tool call (arguments, attempts, result), approval and lock grant of a job, read from its Temporal history (all runs) with long texts resolved from the content store. --json prints one record a line (JSONL).',
    )
    .action(
      handler(async (jobId: string, o: { json: boolean }) => {
        const records = await withTemporal((t) => readAudit(t.client, jobId), jobId);
        if (o.json) for (const r of records) out(JSON.stringify(r));
        else out(formatTimeline(records));
        return 0;
      }),
    );

  program
    .command('export')
    .summary('a job as a scenario for the scripted model, or its raw history')
    .argument('<jobId>')
    .option('--scenario <file>', 'write a scenario the offline model can play')
    .option('--history <file>', "write the latest run's history as JSON (for `dagent replay --file`)")
    .action(
      handler(async (jobId: string, o: { scenario?: string; history?: string }) => {
        if (!o.scenario && !o.history)
          throw new UsageError('Say what to write: --scenario FILE and/or --history FILE.');
        await withTemporal(async (t) => {
          if (o.history) {
            const history = (await fetchJobRuns(t.client, jobId)).at(-1)!;
            await writeFile(o.history, historyToJSON(history));
            note(`Wrote the history of ${jobId} (${history.events?.length ?? 0} events) to ${o.history}.`);
          }
          if (o.scenario) {
            const scenario = recordsToScenario(await readAudit(t.client, jobId), jobId);
            await writeFile(o.scenario, `${JSON.stringify(scenario, null, 2)}\n`);
            note(
              `Wrote a ${scenario.steps.length}-step scenario to ${o.scenario}; play it with DAGENT_SCENARIO=${o.scenario} dagent run "${scenario.task ?? '…'}" (no model configured).`,
            );
          }
        }, jobId);
        return 0;
      }),
    );

  program
    .command('replay')
    .summary("replay a job's history against the current workflow code")
    .argument('[jobId]')
    .option(
      '--file <history.json>',
      'a history written by `dagent export --history` or `temporal workflow show -o json`',
    )
    .action(
      handler(async (jobId: string | undefined, o: { file?: string }) => {
        if (!jobId === !o.file) throw new UsageError('Give a job id or --file HISTORY.json (one of them).');
        const history = o.file
          ? historyFromJSON(JSON.parse(await readFile(o.file, 'utf8')))
          : await withTemporal(async (t) => (await fetchJobRuns(t.client, jobId!)).at(-1)!, jobId);
        const name = o.file ?? jobId!;
        try {
          await replayHistory(history, name, jobId);
        } catch (err) {
          out(
            `${name}: replay FAILED against the current workflow code (${history.events?.length ?? 0} events):\n  ${(err as Error).name}: ${(err as Error).message}`,
          );
          return 1;
        }
        out(
          `${name}: replayed ${history.events?.length ?? 0} events against the current workflow code: deterministic.`,
        );
        return 0;
      }),
    );
}
