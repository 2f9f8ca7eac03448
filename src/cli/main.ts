import { auditCommand, exportCommand, replayCommand } from './commands/audit.js';
import { cancelCommand, decideCommand, listCommand, pendingCommand, watchCommand } from './commands/control.js';
import { demoCommand } from './commands/demo.js';
import { downCommand, serverCommand, setupCommand, upCommand, workerCommand } from './commands/infra.js';
import { resultCommand, statusCommand } from './commands/jobs.js';
import { jobsCommand } from './commands/jobs-search.js';
import { RUN_USAGE, runCommand } from './commands/run.js';
import { chatCommand, sendCommand } from './commands/session.js';
import { UsageError } from './usage-error.js';

const HELP = `dagent — durable, auditable agent jobs on Temporal

  ${RUN_USAGE}
  dagent send SESSION_ID "message" [--workspace DIR] [--json]
                                    one turn of a long-lived session (created if new)
  dagent chat [SESSION_ID]          an interactive session; resume it later by its id
  dagent list [--json]              recent jobs
  dagent watch JOB_ID [--json]      follow a job's progress until it ends
  dagent cancel JOB_ID [--json]     cancel a job (running tools stop, locks are released)
  dagent pending [--json]           calls waiting for approval
  dagent approve|deny JOB_ID CALL_ID --by NAME [--reason TEXT] [--hash PREFIX]
  dagent status JOB_ID [--json]     where a job is
  dagent result JOB_ID [--json]     wait for a job and print its answer
  dagent jobs [--tool NAME] [--wrote PATH] [--status S] [--since 7d] [--json]
                                    find jobs (from Temporal's visibility)
  dagent audit JOB_ID [--json]      every model call and tool call of a job, from its history
  dagent replay JOB_ID | --file F   replay a job's history against the current workflow code
  dagent export JOB_ID --scenario F | --history F
                                    a job as a scenario for the scripted model, or its raw history
  dagent demo [--json]              the offline demo (npm start)
  dagent up | down                  embedded Temporal server + a worker, in the background
  dagent server                     the embedded Temporal dev server, in the foreground
  dagent worker                     a worker, in the foreground
  dagent setup                      find or build the Temporal CLI

Model: OPENAI_BASE_URL, OPENAI_API_KEY, DAGENT_MODEL (none set: the offline demo model).
Temporal: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE (none set: the embedded dev server in ./.dagent).`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  run: runCommand,
  demo: demoCommand,
  status: statusCommand,
  list: listCommand,
  send: sendCommand,
  chat: chatCommand,
  watch: watchCommand,
  cancel: cancelCommand,
  pending: pendingCommand,
  approve: decideCommand(true),
  deny: decideCommand(false),
  jobs: jobsCommand,
  audit: auditCommand,
  replay: replayCommand,
  export: exportCommand,
  result: resultCommand,
  up: upCommand,
  down: downCommand,
  server: serverCommand,
  worker: workerCommand,
  setup: setupCommand,
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(HELP);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`Unknown command '${name}'.\n\n${HELP}`);
    return 2;
  }
  try {
    return await command(rest);
  } catch (err) {
    const e = err as Error & { code?: string };
    if (err instanceof UsageError || e.code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`dagent ${name}: ${e.message}`);
      return 2;
    }
    console.error(`dagent ${name} failed: ${e.message}`);
    if (process.env.DAGENT_DEBUG) console.error(e.stack);
    return 1;
  }
}
