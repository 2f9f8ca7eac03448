import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { historiesToRecords, resolveContent } from '../audit/decode.js';
import type { AuditRecord } from '../audit/schema.js';
import { ContentStore } from '../content/store.js';

/** Every run of a job that continued-as-new, oldest first (each run names the one before it). */
export async function fetchJobRuns(client: Client, jobId: string): Promise<temporal.api.history.v1.IHistory[]> {
  const runs = [await client.workflow.getHandle(jobId).fetchHistory()];
  for (;;) {
    const before = runs[0]!.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!before) return runs;
    runs.unshift(await client.workflow.getHandle(jobId, before).fetchHistory());
  }
}

/**
 * A job's audit records, from its Temporal history (all runs; no worker needed), with long texts
 * resolved from the content store: every model call, tool call, approval and lock grant.
 */
export async function readAudit(
  client: Client,
  jobId: string,
  store: ContentStore = new ContentStore(),
): Promise<AuditRecord[]> {
  const records = await resolveContent(historiesToRecords(jobId, await fetchJobRuns(client, jobId)), store);
  // A fork's first steps are the recorded job's: shown from its audit, marked as taken from it.
  const start = records[0];
  const fork =
    start?.type === 'job_start' ? (start.input.forkOf as { jobId: string; atStep: number } | undefined) : undefined;
  if (!fork) return records;
  const recorded = (await readAudit(client, fork.jobId, store))
    .filter((r) => (r.type === 'model_call' || r.type === 'tool_call') && r.step <= fork.atStep)
    .map((r) => ({ ...r, fromRecording: (r as { fromRecording?: string }).fromRecording ?? fork.jobId }));
  return [records[0]!, ...recorded, ...records.slice(1)];
}
