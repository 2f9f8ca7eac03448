import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { diffJobs } from '../../audit/diff.js';
import { readAudit } from '../../client/audit.js';
import { ForkError, forkInput } from '../../client/fork.js';
import { newJobId } from '../../client/start-job.js';
import { handler } from '../plumbing/command.js';
import { jsonOption, positiveInt } from '../plumbing/options.js';
import { out, printJson } from '../plumbing/output.js';
import { runJob } from '../plumbing/run-job.js';
import { UsageError } from '../plumbing/usage-error.js';
import { withTemporal } from '../plumbing/with-temporal.js';

/** `dagent fork` (a recorded job continued from one of its steps) and `dagent diff`. */
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
          let systemPrompt: string | undefined;
          if (o.systemPromptFile) {
            try {
              systemPrompt = readFileSync(o.systemPromptFile, 'utf8');
            } catch (err) {
              throw new UsageError(`Cannot read --system-prompt-file: ${(err as Error).message}`);
            }
          }
          const input = await withTemporal(async (t) => {
            try {
              return await forkInput(t.client, {
                jobId,
                atStep: o.atStep,
                ...(o.model ? { model: o.model } : {}),
                ...(systemPrompt !== undefined ? { systemPrompt } : {}),
              });
            } catch (err) {
              if (err instanceof ForkError) throw new UsageError(err.message);
              throw err;
            }
          }, jobId);
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
