import { Option, type Command } from 'commander';
import { jobsQuery, listJobs, type JobFilters } from '../../client/find-jobs.js';
import { JOB_STATUSES } from '../../workflow-safe/job-status.js';
import { handler } from '../plumbing/command.js';
import { jsonOption, limitOption, parseDuration, workspaceId } from '../plumbing/options.js';
import { note, out, printJson } from '../plumbing/output.js';
import { withTemporal } from '../plumbing/with-temporal.js';

const findJobs = (query: string, limit: number) => withTemporal((t) => listJobs(t.client, query, limit));

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
    .option('--wrote <path>', 'jobs that wrote this file (a path inside the workspace, or file:<workspace id>/<path>)')
    .option('-w, --workspace <dir>', 'the workspace --wrote is in (default: any undeclared workspace the file is in)')
    .option(
      '--workspace-id <id>',
      "the workspace's declared id (without --workspace: --wrote is its path inside it)",
      workspaceId,
    )
    .option(
      '--agent <hash>',
      'jobs run by this agent (system prompt, model, format and tool schemas; see `dagent audit`)',
    )
    .addOption(new Option('--status <status>', 'jobs with this status').choices(JOB_STATUSES as unknown as string[]))
    .option('--since <duration>', 'jobs started within this long (e.g. 7d)', parseDuration)
    .addOption(limitOption(100))
    .addOption(jsonOption())
    .action(
      handler(async (o: JobFilters & { limit: number; json: boolean }) => {
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
