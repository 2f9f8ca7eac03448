import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import path from 'node:path';
import {
  derivedWorkspaceId,
  fileKey,
  lexicalRelative,
  localWorkspace,
  realpathAllowMissing,
} from '../tools/workspace.js';
import { ToolInputError } from '../tools/define-tool.js';
import { TEMPORAL_ENDINGS, type JobRow, type JobStatus } from '../workflow-safe/job-status.js';
import { SA_AGENT, SA_STATUS, SA_TOOLS, SA_WROTE } from '../workflow-safe/search-attributes.js';

export type { JobRow };

// Finding jobs in Temporal's visibility store by their search attributes (no worker needed):
// used by `dagent list|jobs` and by the `dagent ui` page.

const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const BY_EXECUTION: Record<string, JobStatus> = {
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
};

/** A job's status: what the turn recorded, unless Temporal ended it without the turn's knowledge. */
export function shownStatus(w: WorkflowExecutionInfo): string {
  const recorded = w.typedSearchAttributes.get(SA_STATUS);
  const byTemporal = BY_EXECUTION[w.status.name];
  if (byTemporal && (recorded === undefined || recorded === 'running' || recorded === 'awaiting_approval'))
    return byTemporal;
  return recorded ?? w.status.name.toLowerCase();
}

/** The visibility query for one status, matching `shownStatus`. */
function statusClause(status: JobStatus): string {
  if (status in TEMPORAL_ENDINGS)
    return `ExecutionStatus = '${TEMPORAL_ENDINGS[status as keyof typeof TEMPORAL_ENDINGS]}'`;
  const recorded = `${SA_STATUS.name} = ${quote(status)}`;
  if (status === 'failed') return `(${recorded} OR ExecutionStatus = 'Failed')`;
  if (status === 'cancelled') return `(${recorded} OR ExecutionStatus = 'Canceled')`;
  if (status === 'running' || status === 'awaiting_approval') return `(${recorded} AND ExecutionStatus = 'Running')`;
  return recorded;
}

export interface JobFilters {
  tool?: string;
  agent?: string;
  /** A file: a path inside `workspace` (relative to it, or absolute), or a resource key `file:<id>/<path>`. */
  wrote?: string;
  /** The workspace `wrote` is in: its folder here (default: any folder above the file) … */
  workspace?: string;
  /** … and its declared id (without a folder: `wrote` is taken as the path inside it). */
  workspaceId?: string;
  status?: JobStatus;
  since?: number;
}

export async function jobsQuery(f: JobFilters, now = Date.now()): Promise<string> {
  const parts = ["WorkflowType = 'agentTurn'"];
  if (f.tool) parts.push(`${SA_TOOLS.name} = ${quote(f.tool)}`);
  if (f.agent) parts.push(`${SA_AGENT.name} = ${quote(f.agent)}`);
  if (f.wrote) {
    const keys = await wroteKeys(f as JobFilters & { wrote: string });
    parts.push(`(${keys.map((k) => `${SA_WROTE.name} = ${quote(k)}`).join(' OR ')})`);
  }
  if (f.status) parts.push(statusClause(f.status));
  if (f.since !== undefined) parts.push(`StartTime > ${quote(new Date(now - f.since).toISOString())}`);
  return parts.join(' AND ');
}

/**
 * The resource keys `jobs --wrote` looks for (`file:<workspace id>/<path>`, the same on every host).
 * With a workspace (`--workspace`, `--workspace-id`), its key; without one, the path may lie in any
 * undeclared workspace: the key it has in each folder above it.
 */
export async function wroteKeys(f: JobFilters & { wrote: string }): Promise<string[]> {
  if (f.wrote.startsWith('file:')) return [f.wrote];
  try {
    if (f.workspaceId && !f.workspace) return [fileKey(f.workspaceId, lexicalRelative('/', f.wrote))];
    if (f.workspace || f.workspaceId) {
      const ws = await localWorkspace(f.workspace!, f.workspaceId);
      const real = await realpathAllowMissing(path.resolve(ws.workspace, f.wrote));
      return [fileKey(ws.workspaceId, lexicalRelative(ws.workspace, real))];
    }
  } catch (err) {
    if (err instanceof ToolInputError)
      throw new ToolInputError(`--wrote ${f.wrote}: not a file of the workspace ${f.workspace ?? f.workspaceId}.`);
    throw err;
  }
  const real = await realpathAllowMissing(path.resolve(f.wrote));
  // `file:<real path>`: the key jobs recorded before workspaces had ids.
  const keys: string[] = [`file:${real}`];
  for (let dir = path.dirname(real); ; dir = path.dirname(dir)) {
    keys.push(fileKey(derivedWorkspaceId(dir), path.relative(dir, real)));
    if (dir === path.dirname(dir)) return keys;
  }
}

/** Jobs matching a visibility query, newest first, at most `limit`. */
export async function listJobs(client: Client, query: string, limit: number): Promise<JobRow[]> {
  const jobs: JobRow[] = [];
  for await (const w of client.workflow.list({ query })) {
    const sa = w.typedSearchAttributes;
    jobs.push({
      jobId: w.workflowId,
      status: shownStatus(w),
      startedAt: w.startTime.toISOString(),
      closedAt: w.closeTime?.toISOString() ?? null,
      tools: sa.get(SA_TOOLS) ?? [],
      wrote: (sa.get(SA_WROTE) ?? []).map((k) => k.replace(/^file:/, '')),
    });
    if (jobs.length >= limit) break;
  }
  return jobs;
}
