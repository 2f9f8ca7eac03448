import { Option, type Command } from 'commander';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { fileKey, realpathAllowMissing } from '../../tools/workspace.js';
import { JOB_STATUSES, TEMPORAL_ENDINGS, type JobStatus } from '../../workflow-safe/job-status.js';
import { SA_AGENT, SA_STATUS, SA_TOOLS, SA_WROTE } from '../../workflow-safe/search-attributes.js';
import { handler } from '../plumbing/command.js';
import { jsonOption, limitOption, parseDuration } from '../plumbing/options.js';
import { note, out, printJson } from '../plumbing/output.js';
import { withTemporal } from '../plumbing/with-temporal.js';

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

interface Filters {
  tool?: string;
  agent?: string;
  wrote?: string;
  status?: JobStatus;
  since?: number;
}

async function jobsQuery(f: Filters, now = Date.now()): Promise<string> {
  const parts = ["WorkflowType = 'agentTurn'"];
  if (f.tool) parts.push(`${SA_TOOLS.name} = ${quote(f.tool)}`);
  if (f.agent) parts.push(`${SA_AGENT.name} = ${quote(f.agent)}`);
  if (f.wrote) parts.push(`${SA_WROTE.name} = ${quote(fileKey(await realpathAllowMissing(f.wrote)))}`);
  if (f.status) parts.push(statusClause(f.status));
  if (f.since !== undefined) parts.push(`StartTime > ${quote(new Date(now - f.since).toISOString())}`);
  return parts.join(' AND ');
}

interface JobRow {
  jobId: string;
  status: string;
  startedAt: string;
  closedAt: string | null;
  tools: string[];
  wrote: string[];
}

const findJobs = (query: string, limit: number) =>
  withTemporal(async (t) => {
    const jobs: JobRow[] = [];
    for await (const w of t.client.workflow.list({ query })) {
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
  });

/** `dagent list` and `dagent jobs`, from Temporal's visibility (no worker needed). */
export function registerFind(program: Command): void {
  program
    .command('list')
    .summary('recent jobs, newest first')
    .addOption(limitOption(20))
    .addOption(jsonOption())
    .action(
      handler(async (o: { limit: number; json: boolean }) => {
        const jobs = await findJobs(await jobsQuery({}), o.limit);
        if (o.json) printJson(jobs.map(({ tools: _t, wrote: _w, ...j }) => j));
        else if (!jobs.length) note('No jobs yet.');
        else
          for (const j of jobs)
            out(
              `${j.jobId}  ${j.status.padEnd(17)}  started ${j.startedAt}${j.closedAt ? `  closed ${j.closedAt}` : ''}`,
            );
        return 0;
      }),
    );

  program
    .command('jobs')
    .summary('find jobs by tool used, file written, status or age')
    .option('--tool <name>', 'jobs that called this tool')
    .option('--wrote <path>', 'jobs that wrote this file')
    .option(
      '--agent <hash>',
      'jobs run by this agent (system prompt, model, format and tool schemas; see `dagent audit`)',
    )
    .addOption(new Option('--status <status>', 'jobs with this status').choices(JOB_STATUSES as unknown as string[]))
    .option('--since <duration>', 'jobs started within this long (e.g. 7d)', parseDuration)
    .addOption(limitOption(100))
    .addOption(jsonOption())
    .action(
      handler(async (o: Filters & { limit: number; json: boolean }) => {
        const query = await jobsQuery(o);
        const jobs = await findJobs(query, o.limit);
        if (o.json) printJson(jobs);
        else if (!jobs.length) note(`No jobs match (${query}).`);
        else
          for (const j of jobs)
            out(
              `${j.jobId}  ${j.status.padEnd(9)}  ${j.startedAt}  tools: ${j.tools.join(',') || '-'}${j.wrote.length ? `  wrote: ${j.wrote.join(', ')}` : ''}`,
            );
        return 0;
      }),
    );
}
