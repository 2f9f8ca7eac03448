import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { historiesToRecords, resolveContent } from '../../audit/decode.js';
import { ContentStore } from '../../content/store.js';
import { recordsToScenario } from '../../audit/scenario-export.js';
import { formatTimeline } from '../../audit/timeline.js';
import { cachedWorkflowBundle } from '../../worker/bundle-cache.js';
import { installRuntime } from '../../worker/runtime.js';
import { note, out } from '../output.js';
import { withTemporal } from '../with-temporal.js';
import { UsageError } from '../usage-error.js';

/** A job's history, read from the server (no worker needed): its latest run. */
const fetchJobHistory = (jobId: string) => withTemporal((t) => t.client.workflow.getHandle(jobId).fetchHistory());

/** Every run of a job that continued-as-new, oldest first (each run names the one before it). */
const fetchJobRuns = (jobId: string) => withTemporal(async (t) => {
  const runs = [await t.client.workflow.getHandle(jobId).fetchHistory()];
  for (;;) {
    const before = runs[0]!.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!before) return runs;
    runs.unshift(await t.client.workflow.getHandle(jobId, before).fetchHistory());
  }
});

/** `dagent audit JOB_ID [--json]`: what the job did, from its Temporal history. */
export async function auditCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  const jobId = positionals[0];
  if (!jobId || positionals.length > 1) throw new UsageError('usage: dagent audit JOB_ID [--json]');
  const records = await resolveContent(historiesToRecords(jobId, await fetchJobRuns(jobId)), new ContentStore());
  if (values.json) for (const r of records) out(JSON.stringify(r));
  else out(formatTimeline(records));
  return 0;
}

/** `dagent export JOB_ID --scenario FILE | --history FILE`. */
export async function exportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { scenario: { type: 'string' }, history: { type: 'string' } } });
  const jobId = positionals[0];
  if (!jobId || (!values.scenario && !values.history)) throw new UsageError('usage: dagent export JOB_ID [--scenario FILE] [--history FILE]');
  const runs = await fetchJobRuns(jobId);
  const history = runs.at(-1)!;
  if (values.history) {
    await writeFile(values.history, historyToJSON(history));
    note(`Wrote the history of ${jobId} (${history.events?.length ?? 0} events) to ${values.history}.`);
  }
  if (values.scenario) {
    const scenario = recordsToScenario(await resolveContent(historiesToRecords(jobId, runs), new ContentStore()), jobId);
    await writeFile(values.scenario, `${JSON.stringify(scenario, null, 2)}\n`);
    note(`Wrote a ${scenario.steps.length}-step scenario to ${values.scenario}; play it with DAGENT_SCENARIO=${values.scenario} dagent run "${scenario.task ?? '…'}" (no model configured).`);
  }
  return 0;
}

/** Replays a history against the current workflow code; throws on a determinism violation. */
export async function replayHistory(history: unknown, name: string, workflowId?: string): Promise<void> {
  installRuntime();
  const codePath = process.env.DAGENT_WORKFLOW_BUNDLE ?? (await cachedWorkflowBundle());
  await Worker.runReplayHistory({ workflowBundle: { codePath }, replayName: name }, history, workflowId);
}

/** `dagent replay JOB_ID | --file HISTORY.json`: would the current code still run this job? */
export async function replayCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { file: { type: 'string' } } });
  const jobId = positionals[0];
  if (!jobId === !values.file) throw new UsageError('usage: dagent replay JOB_ID | dagent replay --file HISTORY.json');
  const history = values.file ? historyFromJSON(JSON.parse(await readFile(values.file, 'utf8'))) : await fetchJobHistory(jobId!);
  const name = values.file ?? jobId!;
  try {
    await replayHistory(history, name, jobId);
  } catch (err) {
    out(`${name}: replay FAILED against the current workflow code (${history.events?.length ?? 0} events):\n  ${(err as Error).name}: ${(err as Error).message}`);
    return 1;
  }
  out(`${name}: replayed ${history.events?.length ?? 0} events against the current workflow code: deterministic.`);
  return 0;
}
