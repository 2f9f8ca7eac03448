import { parseArgs } from 'node:util';
import { fileKey, realpathAllowMissing } from '../../tools/workspace.js';
import { SA_STATUS, SA_TOOLS, SA_WROTE } from '../../workflow-safe/search-attributes.js';
import { note, out, printJson } from '../output.js';
import { UsageError } from '../usage-error.js';
import { withTemporal } from '../with-temporal.js';

const UNITS: Record<string, number> = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 };
const STATUSES = ['running', 'completed', 'max_steps', 'failed', 'cancelled'];
const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export function parseDuration(s: string, flag = '--since'): number {
  const m = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(s.trim());
  if (!m) throw new UsageError(`${flag} takes a duration like 30m, 12h or 7d; got '${s}'.`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

/** The visibility query for `dagent jobs` filters. */
async function jobsQuery(f: { tool?: string; wrote?: string; status?: string; since?: string }, now = Date.now()): Promise<string> {
  const parts = ["WorkflowType = 'agentTurn'"];
  if (f.tool) parts.push(`${SA_TOOLS.name} = ${quote(f.tool)}`);
  if (f.wrote) parts.push(`${SA_WROTE.name} = ${quote(fileKey(await realpathAllowMissing(f.wrote)))}`);
  if (f.status) {
    if (!STATUSES.includes(f.status)) throw new UsageError(`--status must be one of ${STATUSES.join(', ')}; got '${f.status}'.`);
    parts.push(`${SA_STATUS.name} = ${quote(f.status)}`);
  }
  if (f.since) parts.push(`StartTime > ${quote(new Date(now - parseDuration(f.since)).toISOString())}`);
  return parts.join(' AND ');
}

/** `dagent jobs [--tool NAME] [--wrote PATH] [--status S] [--since DURATION] [--json]`, from Temporal's visibility. */
export async function jobsCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      tool: { type: 'string' }, wrote: { type: 'string' }, status: { type: 'string' }, since: { type: 'string' },
      limit: { type: 'string', default: '100' }, json: { type: 'boolean', default: false },
    },
  });
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a whole number of at least 1, got '${values.limit}'.`);
  const query = await jobsQuery(values);
  return withTemporal(async (t) => {
    const jobs: Array<{ jobId: string; status: string; startedAt: string; closedAt: string | null; tools: string[]; wrote: string[] }> = [];
    for await (const w of t.client.workflow.list({ query })) {
      const sa = w.typedSearchAttributes;
      jobs.push({
        jobId: w.workflowId,
        status: sa.get(SA_STATUS) ?? w.status.name.toLowerCase(),
        startedAt: w.startTime.toISOString(),
        closedAt: w.closeTime?.toISOString() ?? null,
        tools: sa.get(SA_TOOLS) ?? [],
        wrote: (sa.get(SA_WROTE) ?? []).map((k) => k.replace(/^file:/, '')),
      });
      if (jobs.length >= limit) break;
    }
    if (values.json) printJson(jobs);
    else if (!jobs.length) note(`No jobs match (${query}).`);
    else for (const j of jobs) out(`${j.jobId}  ${j.status.padEnd(9)}  ${j.startedAt}  tools: ${j.tools.join(',') || '-'}${j.wrote.length ? `  wrote: ${j.wrote.join(', ')}` : ''}`);
    return 0;
  });
}
