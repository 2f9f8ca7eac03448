import {
  modelConfigFromEnv,
  policyFromEnv,
  pricesFromEnv,
  workerSettingsFromEnv,
  type LogLevelName,
} from '../../config.js';
import { embeddedFiles, hasRecentPoller, type Temporal } from '../../temporal/connect.js';
import { liveProcess } from '../../temporal/pid-file.js';
import { builtinTools } from '../../tools/builtins/index.js';
import type { ToolDefinition } from '../../tools/define-tool.js';
import { createAgentWorker } from '../../worker/create-worker.js';
import { tracingFor } from '../../worker/tracing.js';
import { resolveModel } from '../../worker/model-setup.js';
import { loadPluginTools } from '../../worker/plugins.js';
import { installRuntime } from '../../worker/runtime.js';
import { note } from './output.js';
import { loadMcpConfig } from '../../mcp/config.js';
import path from 'node:path';

/** Running calls get this long to finish when a command's own worker stops (other jobs' calls too). */
const DRAIN_MS = 30_000;

/** The tools of every worker this CLI starts: the built-ins and DAGENT_PLUGINS. */
export async function workerTools(): Promise<ToolDefinition<any>[]> {
  const plugins = await loadPluginTools(workerSettingsFromEnv().plugins);
  if (plugins.length) note(`Plugin tools: ${plugins.map((p) => p.name).join(', ')}.`);
  return [...builtinTools, ...plugins];
}

/** A record of the worker `dagent up` started, in the data folder. */
export const upWorkerAbout = (t: Temporal) => ({
  address: t.address,
  namespace: t.config.namespace,
  taskQueue: t.config.taskQueue,
});

/**
 * A long-lived worker this CLI can vouch for: the one `dagent up` started for this very server and
 * task queue (alive by its pid), or workers declared as managed elsewhere (DAGENT_EXTERNAL_WORKERS).
 * A poller Temporal merely saw recently is not enough: it may be a finished command's worker.
 */
export function vouchedWorker(t: Temporal): string | null {
  if (t.config.externalWorkers) return 'the workers managed elsewhere (DAGENT_EXTERNAL_WORKERS=1)';
  const up = liveProcess(embeddedFiles().workerPid);
  const want = upWorkerAbout(t);
  if (up && Object.entries(want).every(([k, v]) => up.about[k] === v))
    return `the worker \`dagent up\` started (pid ${up.pid})`;
  return null;
}

export interface CommandWorker {
  offline: boolean;
  /** The model it talks to, in words. */
  model: string;
  /** Settles when the worker has stopped (after `stop()`, or SIGINT/SIGTERM). */
  done: Promise<void>;
  stop(): Promise<void>;
}

/** A worker inside this process, with the built-in and plugin tools; running calls may finish when it stops. */
export async function startCommandWorker(
  t: Temporal,
  o: { taskQueue: string; forceOffline?: boolean; logLevel?: LogLevelName; workspaces?: Record<string, string> },
): Promise<CommandWorker> {
  installRuntime(o.logLevel ?? 'ERROR');
  const model = await resolveModel({ log: note, ...(o.forceOffline ? { forceOffline: true } : {}) });
  const settings = workerSettingsFromEnv();
  const { mcpFile } = settings;
  const tracing = tracingFor(settings.tracing);
  // A traced worker needs the bundle with the tracing interceptors (not the test runner's prebuilt one).
  const workflowBundle = tracing ? undefined : settings.workflowBundle;
  const mcpServers = mcpFile ? loadMcpConfig(path.resolve(mcpFile)) : [];
  let worker;
  try {
    worker = await createAgentWorker({
      address: t.address,
      namespace: t.config.namespace,
      taskQueue: o.taskQueue,
      model: model.config,
      tools: await workerTools(),
      policy: policyFromEnv(),
      prices: pricesFromEnv(),
      workspaces: o.workspaces ?? settings.workspaces,
      ...(mcpServers.length ? { mcpServers } : {}),
      warn: note,
      shutdownGraceTime: DRAIN_MS,
      ...(workflowBundle ? { workflowBundle } : {}),
      ...(tracing ? { tracing } : {}),
    });
  } catch (err) {
    await model.close();
    throw err;
  }
  const done = worker.run().finally(() => model.close());
  return {
    offline: model.offline,
    model: `${model.config.model} at ${model.config.baseURL}`,
    done,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

/**
 * Makes sure the job can make progress while this command runs: unless a worker it can vouch
 * for serves the queue, it starts one in this process (stopped by the caller). A detached job gets
 * no worker of its own (the command ends at once): it is told when none is known to serve it.
 */
export async function ensureWorker(
  t: Temporal,
  o: { detach: boolean; offlineQueue?: string },
): Promise<CommandWorker | undefined> {
  if (o.offlineQueue) return startCommandWorker(t, { taskQueue: o.offlineQueue, forceOffline: true });
  const vouched = vouchedWorker(t);
  if (vouched) {
    if (!modelConfigFromEnv())
      note(`Using ${vouched} on task queue '${t.config.taskQueue}' (and whatever model it was started with).`);
    return undefined;
  }
  if (!o.detach) return startCommandWorker(t, { taskQueue: t.config.taskQueue });
  const recent = await hasRecentPoller(t);
  note(
    recent
      ? `A worker polled task queue '${t.config.taskQueue}' recently, but none this CLI can vouch for: the job runs when a worker serves the queue (\`dagent up\` starts one).`
      : `No worker polls task queue '${t.config.taskQueue}' yet: the job waits until one does (start one with \`dagent up\`).`,
  );
  return undefined;
}
