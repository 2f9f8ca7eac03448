import { Option, type Command } from 'commander';
import { newJobId } from '../../client/start-job.js';
import { makeRedactor } from '../../audit/redact.js';
import type { ToolFormat, TurnInput } from '../../workflow-safe/types.js';
import { handler } from '../plumbing/command.js';
import {
  commaList,
  formatOption,
  jsonOption,
  parseDuration,
  positiveInt,
  workspaceId,
  positiveNumber,
} from '../plumbing/options.js';
import { runJob, workspaceDir } from '../plumbing/run-job.js';
import { UsageError } from '../plumbing/usage-error.js';

interface RunOptions {
  workspace?: string;
  workspaceId?: string;
  model?: string;
  maxSteps?: number;
  format?: ToolFormat;
  serialWrites: boolean;
  maxTokens?: number;
  compactAt?: number;
  deadline?: number;
  maxCost?: number;
  onBudget: 'pause' | 'stop';
  approveTools?: string[];
  approvalTimeout?: number;
  id?: string;
  detach: boolean;
  json: boolean;
}

/** `dagent run "<task>"`: one job, followed to its end (or `--detach`ed). */
export function registerRun(program: Command): void {
  program
    .command('run')
    .summary('run one agent job and follow it to the end')
    .description(
      'Runs one agent job. Attached (the default), the command shows its progress and answer, and starts a worker of its ' +
        'own unless `dagent up` started one for this server or DAGENT_EXTERNAL_WORKERS=1 says workers run elsewhere. ' +
        'Ctrl-C leaves the job running: it is durable and continues when a worker serves its task queue.',
    )
    .argument('<task...>', 'what the agent should do')
    .option('-w, --workspace <dir>', 'the folder the tools work in (default: the current folder)')
    .option(
      '--workspace-id <id>',
      'a declared workspace: tools run on the workers that declare it (`dagent worker --workspace ID=DIR`), in their folder',
      workspaceId,
    )
    .option('-m, --model <name>', 'model name (default: DAGENT_MODEL)')
    .option('--max-steps <n>', 'stop after this many model calls (default 20)', positiveInt)
    .addOption(formatOption())
    .option('--serial-writes', 'run every write of a step strictly one at a time', false)
    .option('--max-tokens <n>', 'pause when the model calls would use more tokens than this', positiveInt)
    .option(
      '--compact-at <tokens>',
      "keep the model's context bounded: once a call reaches this many tokens, older messages are summarised in one",
      positiveInt,
    )
    .option('--max-cost <usd>', 'pause when the model calls would cost more than this (DAGENT_PRICES)', positiveNumber)
    .option('--deadline <duration>', 'pause this long after the job started (e.g. 30m)', parseDuration)
    .addOption(
      new Option('--on-budget <what>', 'when a budget is reached: pause (wait for `dagent resume`) or stop')
        .choices(['pause', 'stop'])
        .default('pause'),
    )
    .option('--approve-tools <names>', 'tools whose every call waits for approval (comma-separated)', commaList)
    .option(
      '--approval-timeout <duration>',
      'a call waiting this long for approval is denied (default 24h)',
      parseDuration,
    )
    .option('--id <jobId>', 'the job id (default: a fresh one)')
    .addOption(new Option('-d, --detach', 'start the job and return its id at once').default(false))
    .addOption(jsonOption())
    .action(
      handler(async (words: string[], o: RunOptions) => {
        const task = words.join(' ').trim();
        if (!task) throw new UsageError('Give the task to do.');
        const input: TurnInput = {
          task: makeRedactor()(task), // nothing secret-looking enters a workflow input
          workspace: workspaceDir(o.workspace),
          ...(o.workspaceId ? { workspaceId: o.workspaceId } : {}),
          ...(o.model ? { model: o.model } : {}),
          ...(o.maxSteps ? { maxSteps: o.maxSteps } : {}),
          ...(o.serialWrites ? { serialWrites: true } : {}),
          ...(o.format && o.format !== 'native' ? { toolFormat: o.format } : {}),
          ...(o.maxTokens ? { maxTokens: o.maxTokens } : {}),
          ...(o.compactAt ? { compactAtTokens: o.compactAt } : {}),
          ...(o.deadline ? { deadlineMs: o.deadline } : {}),
          ...(o.maxCost ? { maxCostUsd: o.maxCost } : {}),
          ...(o.onBudget === 'stop' ? { onBudget: 'stop' as const } : {}),
          ...(o.approveTools?.length ? { requireApproval: o.approveTools } : {}),
          ...(o.approvalTimeout ? { approvalTimeoutMs: o.approvalTimeout } : {}),
        };
        const { code, temporal } = await runJob({ input, jobId: o.id ?? newJobId(), detach: o.detach, json: o.json });
        await temporal.close();
        return code;
      }),
    );
}
