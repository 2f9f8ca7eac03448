import { BEAT_EVERY_MS } from '../../activities/heartbeat.js';
import { realpath, stat } from 'node:fs/promises';
import { Client, Connection } from '@temporalio/client';
import { WORKSPACE_ID, WORKSPACE_ID_RULE, workspaceQueue } from '../workflow-safe/workspace-queue.js';
import { NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { agentMetrics } from './metrics.js';
import { TRACING_WORKFLOW_MODULE, tracingPlugin, type TracingOptions } from './tracing.js';
import { createActivities } from '../../activities/index.js';
import { makeRedactor, type Redactor } from '../audit/redact.js';
import type { ModelConfig } from '../config.js';
import { ContentStore } from '../content/store.js';
import { defaultPolicy, type Policy } from '../policy/index.js';
import { DEFAULT_PRICES, type PriceTable } from '../llm/prices.js';
import { uncontained } from '../tools/shell/sandbox.js';
import { ensureSearchAttributes } from '../temporal/search-attributes.js';
import { builtinTools } from '../tools/builtins/index.js';
import type { ToolDefinition } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/registry.js';
import type { McpServerConfig } from '../mcp/config.js';
import { McpPool } from '../mcp/pool.js';
import { workflowBundleCode } from './bundle.js';
import { cachedWorkflowBundle } from './bundle-cache.js';

export interface AgentActivityOptions {
  /** The model endpoint the model activity calls. */
  model: ModelConfig;
  /** A client of the same namespace: lock requests start lock workflows with it. */
  client: Client;
  /** Tools this worker offers; the built-ins when absent. */
  tools?: ToolDefinition<any>[];
  /** Where long texts go instead of history; the data folder's `content/` when absent. */
  store?: ContentStore;
  /** Applied to everything the activities return; the default secret redactor when absent. */
  redact?: Redactor;
  /** Decides every call (allow, deny, ask) and sets up the shell's sandbox; the built-in default when absent. */
  policy?: Policy;
  /** Model prices for cost budgets (USD per million tokens); the built-in table when absent. */
  prices?: PriceTable;
  /** MCP servers whose tools join this worker's (started and listed already; see {@link McpPool}). */
  mcp?: { pool: McpPool; tools: ToolDefinition<any>[] };
  /**
   * Workspaces this host has (id → folder). Jobs started with that `workspaceId` run their tool
   * calls on workers that declare it, in that worker's folder for it.
   */
  workspaces?: Record<string, string>;
  /** Where warnings about this worker's setup go (an uncontained shell); console.warn when absent. */
  warn?: (message: string) => void;
}

/** Our activities, for a worker of your own (or use {@link agentPlugin}). */
export function createAgentActivities(o: AgentActivityOptions) {
  const registry = new ToolRegistry(
    [...(o.tools ?? builtinTools), ...(o.mcp?.tools ?? [])],
    o.policy ?? defaultPolicy(),
    new Map(Object.entries(o.workspaces ?? {})),
  );
  o.mcp?.pool.onToolsChanged((server, tools) => registry.replaceServerTools(server, tools));
  checkShellContainment(registry, o.warn ?? ((m) => console.warn(m)));
  return createActivities({
    model: o.model,
    client: o.client,
    registry,
    redact: o.redact ?? makeRedactor(),
    store: o.store ?? new ContentStore(),
    prices: o.prices ?? DEFAULT_PRICES,
    metrics: agentMetrics(Runtime.instance().metricMeter),
  });
}

/**
 * A worker whose policy demands the shell sandbox refuses to start without it; one that would
 * run the shell uncontained says so loudly (each such call's result says it too).
 */
function checkShellContainment(registry: ToolRegistry, warn: (m: string) => void): void {
  if (!registry.names().includes('shell')) return;
  const why = uncontained(registry.policy.shell); // throws when the policy demands a sandbox it cannot have
  if (why) warn(`WARNING: shell is ${why} (policy: ${registry.policy.source}).`);
}

/**
 * A Temporal worker plugin that adds our activities to a worker you create yourself. Your
 * workflows file must also export ours: `export * from 'durable-agent/workflow'`.
 */
export function agentPlugin(o: AgentActivityOptions) {
  return {
    name: 'durable-agent',
    configureWorker: (options: WorkerOptions): WorkerOptions => ({
      ...options,
      activities: { ...options.activities, ...createAgentActivities(o) },
    }),
  };
}

export interface AgentWorkerOptions extends Omit<AgentActivityOptions, 'client' | 'mcp'> {
  /** MCP servers whose tools join this worker's: connected at start, closed when the worker stops. */
  mcpServers?: McpServerConfig[];
  taskQueue: string;
  namespace?: string;
  /** Temporal's address; or pass `connection` (and `client`) you own. */
  address?: string;
  connection?: NativeConnection;
  client?: Client;
  /** Your own workflows file, which must `export * from 'durable-agent/workflow'`; ours alone when absent. */
  workflowsPath?: string;
  /** A prebuilt workflow bundle (overrides `workflowsPath`). */
  workflowBundle?: string;
  maxConcurrentActivities?: number;
  /** How long `shutdown()` lets running activities finish before cancelling them. Default 0. */
  shutdownGraceTime?: WorkerOptions['shutdownGraceTime'];
  /** OpenTelemetry tracing: where the spans of jobs (runs, model and tool calls, lock waits) go. */
  tracing?: TracingOptions;
}

/**
 * A Temporal worker for agent jobs: our workflows (or yours, re-exporting ours) and activities.
 * Connections it opened itself close when `run()` ends.
 */
export async function createAgentWorker(o: AgentWorkerOptions): Promise<Worker> {
  if (!o.connection && !o.address)
    throw new Error('createAgentWorker: pass `address` (e.g. 127.0.0.1:7233) or a `connection`.');
  if (!o.client && !o.address)
    throw new Error('createAgentWorker: pass `address`, or a `client` besides the `connection`.');
  const namespace = o.namespace ?? 'default';
  const owned: Array<{ close(): Promise<void> }> = [];
  try {
    const connection = o.connection ?? (await NativeConnection.connect({ address: o.address! }));
    if (!o.connection) owned.push(connection);
    let client = o.client;
    if (!client) {
      const c = await Connection.connect({ address: o.address! });
      owned.push(c);
      client = new Client({ connection: c, namespace });
    }
    await ensureSearchAttributes(client, namespace);
    let mcp: AgentActivityOptions['mcp'];
    if (o.mcpServers?.length) {
      const pool = new McpPool(o.mcpServers, o.warn ?? ((m) => console.warn(m)));
      owned.push(pool);
      await pool.start();
      mcp = { pool, tools: await pool.tools() };
    }
    const workflowBundle = o.workflowBundle
      ? { codePath: o.workflowBundle }
      : o.workflowsPath
        ? { code: await workflowBundleCode(o.workflowsPath, o.tracing ? [TRACING_WORKFLOW_MODULE] : []) }
        : { codePath: await cachedWorkflowBundle({ traced: !!o.tracing }) };
    const workspaces = await checkWorkspaces(o.workspaces ?? {});
    const activities = createAgentActivities({ ...o, client, workspaces, ...(mcp ? { mcp } : {}) });
    const common = {
      connection,
      namespace,
      activities,
      maxConcurrentActivityTaskExecutions: o.maxConcurrentActivities ?? 100,
      // A streamed reply's progress reaches watchers this often (the SDK's default waits up to 8 s).
      maxHeartbeatThrottleInterval: BEAT_EVERY_MS,
      ...(o.shutdownGraceTime !== undefined ? { shutdownGraceTime: o.shutdownGraceTime } : {}),
      ...(o.tracing ? { plugins: [tracingPlugin(o.tracing)] } : {}),
    };
    const worker = await Worker.create({ ...common, taskQueue: o.taskQueue, workflowBundle });
    // One more poller per declared workspace: the tool calls of jobs in it (activities only).
    const local = await Promise.all(
      Object.keys(workspaces).map((id) => Worker.create({ ...common, taskQueue: workspaceQueue(o.taskQueue, id) })),
    );
    const run = worker.run.bind(worker);
    worker.run = async () => {
      const stopMain = () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
      };
      const locals = local.map((w) => w.run().finally(stopMain));
      try {
        await run();
      } finally {
        for (const w of local) if (w.getState() === 'RUNNING') w.shutdown();
        await Promise.allSettled(locals);
        await closeAll(owned);
      }
      await Promise.all(locals); // a workspace poller that failed fails the worker
    };
    return worker;
  } catch (err) {
    await closeAll(owned);
    throw err;
  }
}

/** Declared workspaces, each an existing folder (its real path); a wrong one stops the worker from starting. */
export async function checkWorkspaces(ws: Record<string, string>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [id, dir] of Object.entries(ws)) {
    if (!WORKSPACE_ID.test(id)) throw new Error(`Workspace id '${id}' is invalid: use ${WORKSPACE_ID_RULE}.`);
    const st = await stat(dir).catch(() => null);
    if (!st?.isDirectory()) throw new Error(`Workspace '${id}': ${dir} is not an existing folder on this host.`);
    out[id] = await realpath(dir);
  }
  return out;
}

async function closeAll(xs: Array<{ close(): Promise<void> }>): Promise<void> {
  await Promise.allSettled(xs.splice(0).map((x) => x.close()));
}
