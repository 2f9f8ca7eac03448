import { Command, CommanderError } from 'commander';
import { checkEnv, ConfigError } from '../config.js';
import { registerAudit } from './commands/audit.js';
import { registerCluster } from './commands/cluster.js';
import { registerControl } from './commands/control.js';
import { registerDemo } from './commands/demo.js';
import { registerFind } from './commands/find.js';
import { registerFork } from './commands/fork.js';
import { registerInfra } from './commands/infra.js';
import { registerRun } from './commands/run.js';
import { registerSession } from './commands/session.js';
import { registerStatus } from './commands/status.js';
import { registerUi } from './commands/ui.js';
import { lastExitCode } from './plumbing/command.js';
import { UsageError } from './plumbing/usage-error.js';
import { PolicyError } from '../policy/index.js';

const ENVIRONMENT = `
Model: OPENAI_BASE_URL, OPENAI_API_KEY, DAGENT_MODEL, DAGENT_MODEL_TIMEOUT_MS, DAGENT_MODEL_STREAM (0: whole
replies), DAGENT_MODEL_STALL_MS (none set: the offline demo model).
Temporal: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, DAGENT_TASK_QUEUE (none set: the embedded dev server in ./.dagent).
Workers: DAGENT_PLUGINS (tool modules), DAGENT_EXTERNAL_WORKERS=1 (long-lived workers serve the queue:
attached runs start none of their own), DAGENT_LOG_LEVEL, DAGENT_HOME, DAGENT_CONTENT_DIR, DAGENT_METRICS (host:port: Prometheus /metrics),
DAGENT_TRACING (otlp|console; OTEL_EXPORTER_OTLP_ENDPOINT).`;

export function buildProgram(): Command {
  const program = new Command('dagent')
    .description(
      'Durable, auditable agent jobs on Temporal: every job is a workflow, every model and tool call an activity.',
    )
    .addHelpText('after', ENVIRONMENT)
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({ outputError: (s, write) => write(s.replace(/^error: /, 'dagent: ')) })
    .hook('preAction', () => checkEnv());
  for (const register of [
    registerRun,
    registerSession,
    registerStatus,
    registerControl,
    registerFind,
    registerAudit,
    registerFork,
    registerDemo,
    registerInfra,
    registerUi,
    registerCluster,
  ]) {
    register(program);
  }
  // Every command: usage errors exit 2, help exits 0, with the same output handling as the program.
  const override = (c: Command, name: string) => {
    c.exitOverride()
      .showHelpAfterError(`(dagent ${name} --help for usage)`)
      .configureOutput({ outputError: (s, write) => write(s.replace(/^error: /, `dagent ${name}: `)) });
    for (const sub of c.commands) override(sub, `${name} ${sub.name()}`);
  };
  for (const c of program.commands) override(c, c.name());
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return 2;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return lastExitCode();
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.code === 'commander.helpDisplayed' || err.code === 'commander.help' || err.code === 'commander.version'
        ? 0
        : 2;
    }
    const e = err as Error;
    const name = argv[0] ?? '';
    if (err instanceof UsageError || err instanceof ConfigError || err instanceof PolicyError) {
      console.error(`dagent ${name}: ${e.message}`);
      return 2;
    }
    console.error(`dagent ${name} failed: ${e.message}`);
    if (process.env.DAGENT_DEBUG) console.error(e.stack);
    return 1;
  }
}
