import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { TurnInput } from '../../workflow-safe/types.js';
import type { Command } from 'commander';
import { SA_STATUS } from '../../workflow-safe/search-attributes.js';
import { diffJobs } from '../../audit/diff.js';
import { readAudit } from '../../client/audit.js';
import { ForkError, forkInput } from '../../client/fork.js';
import { newJobId, startJob } from '../../client/start-job.js';
import { connectTemporal } from '../../temporal/connect.js';
import { awaitOutcome, type JobOutcome } from '../plumbing/job-outcome.js';
import { ensureWorker } from '../plumbing/worker.js';
import { handler } from '../plumbing/command.js';
import { jsonOption, positiveInt } from '../plumbing/options.js';
import { note, out, printJson } from '../plumbing/output.js';
import { runJob } from '../plumbing/run-job.js';
import { UsageError } from '../plumbing/usage-error.js';
import { withTemporal } from '../plumbing/with-temporal.js';

/** A fork's outcome, or `paused` as soon as it pauses (an eval does not wait for a person). */
async function untilEndedOrPaused(handle: WorkflowHandle): Promise<JobOutcome> {
  const ended = awaitOutcome(handle);
  for (;;) {
    const paused = await Promise.race([ended.then(() => false), sleep(1_000).then(() => true)]);
    if (!paused) return ended;
    const d = await handle.describe();
    if (d.searchAttributes?.[SA_STATUS.name]?.[0] === 'paused')
      return { jobId: handle.workflowId, status: 'paused', answer: null, steps: null, usage: null };
  }
}

/** The input of a fork of `jobId`; a fork that cannot be made is a usage error saying why. */
async function forkOf(
  client: Client,
  jobId: string,
  o: { atStep: number; model?: string },
  systemPrompt: string | undefined,
): Promise<TurnInput> {
  try {
    return await forkInput(client, {
      jobId,
      atStep: o.atStep,
      ...(o.model ? { model: o.model } : {}),
      ...(systemPrompt !== undefined ? { systemPrompt } : {}),
    });
  } catch (err) {
    if (err instanceof ForkError) throw new UsageError(err.message);
    throw err;
  }
}

function readPrompt(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`Cannot read --system-prompt-file: ${(err as Error).message}`);
  }
}

/** `dagent fork` (a recorded job continued from one of its steps), `dagent eval` (many forks) and `dagent diff`. */
export function registerFork(program: Command): void {
  program
    .command('fork')
    .summary('a new job that takes the first N steps from a recorded job and continues live')
    .description(
      'Starts a job whose first N steps are those of a recorded job — its model replies and tool results, read from ' +
        'its history; nothing runs again — and which continues live from step N+1, optionally with another model or ' +
        'system prompt. It works in the recorded job’s workspace. Followed like `run` (or --detach).',
    )
    .argument('<jobId>', 'the recorded job')
    .requiredOption('--at-step <n>', 'how many recorded steps to take', positiveInt)
    .option('-m, --model <name>', 'the model from step N+1 on')
    .option('--system-prompt-file <file>', 'a new system prompt, from this file')
    .option('--id <jobId>', 'the new job id (default: a fresh one)')
    .option('-d, --detach', 'start the job and return its id at once', false)
    .addOption(jsonOption())
    .action(
      handler(
        async (
          jobId: string,
          o: { atStep: number; model?: string; systemPromptFile?: string; id?: string; detach: boolean; json: boolean },
        ) => {
          const systemPrompt = o.systemPromptFile ? readPrompt(o.systemPromptFile) : undefined;
          const input = await withTemporal((t) => forkOf(t.client, jobId, o, systemPrompt), jobId);
          const { code, temporal } = await runJob({
            input,
            jobId: o.id ?? newJobId('fork'),
            detach: o.detach,
            json: o.json,
          });
          await temporal.close();
          return code;
        },
      ),
    );

  program
    .command('eval')
    .summary('fork several recorded jobs at one step with a new model or prompt, and compare')
    .description(
      'Forks each recorded job at step N (as `dagent fork`), all with the same change, waits for every fork, and ' +
        'prints one row per job: status, steps, tokens and whether the answer changed, original → fork.',
    )
    .argument('<jobIds...>', 'the recorded jobs')
    .requiredOption('--at-step <n>', 'how many recorded steps each fork takes', positiveInt)
    .option('-m, --model <name>', 'the model from step N+1 on')
    .option('--system-prompt-file <file>', 'a new system prompt, from this file')
    .addOption(jsonOption())
    .action(
      handler(
        async (jobIds: string[], o: { atStep: number; model?: string; systemPromptFile?: string; json: boolean }) => {
          if (!o.model && !o.systemPromptFile)
            throw new UsageError('Say what to change: --model NAME and/or --system-prompt-file FILE.');
          const systemPrompt = o.systemPromptFile ? readPrompt(o.systemPromptFile) : undefined;
          const t = await connectTemporal({ start: true, log: note });
          const local = await ensureWorker(t, { detach: false });
          try {
            const rows = await Promise.all(
              jobIds.map(async (jobId) => {
                const input = await forkOf(t.client, jobId, o, systemPrompt);
                const fork = await startJob(t.client, {
                  ...input,
                  taskQueue: t.config.taskQueue,
                  jobId: newJobId('eval'),
                });
                const [a, b] = await Promise.all([
                  awaitOutcome(t.client.workflow.getHandle(jobId)),
                  untilEndedOrPaused(fork),
                ]);
                return {
                  jobId,
                  fork: fork.workflowId,
                  status: [a.status, b.status],
                  steps: [a.steps, b.steps],
                  tokens: [a.usage?.totalTokens ?? null, b.usage?.totalTokens ?? null],
                  sameAnswer: a.answer === b.answer,
                };
              }),
            );
            if (o.json) printJson(rows);
            else {
              const arrow = (x: [unknown, unknown]) => `${String(x[0])} → ${String(x[1])}`;
              out(
                `forked at step ${o.atStep}${o.model ? `, model ${o.model}` : ''}${o.systemPromptFile ? `, system prompt ${o.systemPromptFile}` : ''}`,
              );
              for (const r of rows)
                out(
                  `${r.jobId}  ${r.fork}  status ${arrow(r.status as [unknown, unknown])}  steps ${arrow(r.steps as [unknown, unknown])}  tokens ${arrow(r.tokens as [unknown, unknown])}  answer ${r.sameAnswer ? 'same' : 'changed'}`,
                );
              out(`${rows.filter((r) => r.sameAnswer).length} of ${rows.length} answers the same`);
            }
            return 0;
          } finally {
            await local?.stop();
            await t.close();
          }
        },
      ),
    );

  program
    .command('diff')
    .summary('two jobs step by step: calls, arguments, results, answer, tokens')
    .argument('<jobA>')
    .argument('<jobB>')
    .addOption(jsonOption())
    .action(
      handler((a: string, b: string, o: { json: boolean }) =>
        withTemporal(async (t) => {
          const [ra, rb] = [await readAudit(t.client, a), await readAudit(t.client, b)];
          const lines = diffJobs({ id: a, records: ra }, { id: b, records: rb });
          if (o.json) printJson({ a, b, lines });
          else for (const l of lines) out(l);
          return 0;
        }),
      ),
    );
}
