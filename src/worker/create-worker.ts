import { BEAT_EVERY_MS } from '../../activities/heartbeat.js';
import { Client, Connection } from '@temporalio/client';
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
  /** Where warnings about this worker's setup go (an uncontained shell); console.warn when absent. */
  warn?: (message: string) => void;
}

/** Our activities, for a worker of your own (or use {@link agentPlugin}). */
export function createAgentActivities(o: AgentActivityOptions) {
  const registry = new ToolRegistry(
    [...(o.tools ?? builtinTools), ...(o.mcp?.tools ?? [])],
    o.policy ?? defaultPolicy(),
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
    const worker = await Worker.create({
      connection,
      namespace,
      taskQueue: o.taskQueue,
      workflowBundle,
      activities: createAgentActivities({ ...o, client, ...(mcp ? { mcp } : {}) }),
      maxConcurrentActivityTaskExecutions: o.maxConcurrentActivities ?? 100,
      // A streamed reply's progress reaches watchers this often (the SDK's default waits up to 8 s).
      maxHeartbeatThrottleInterval: BEAT_EVERY_MS,
      ...(o.shutdownGraceTime !== undefined ? { shutdownGraceTime: o.shutdownGraceTime } : {}),
      ...(o.tracing ? { plugins: [tracingPlugin(o.tracing)] } : {}),
    });
    const run = worker.run.bind(worker);
    worker.run = async () => {
      try {
        await run();
      } finally {
        await closeAll(owned);
      }
    };
    return worker;
  } catch (err) {
    await closeAll(owned);
    throw err;
  }
}

async function closeAll(xs: Array<{ close(): Promise<void> }>): Promise<void> {
  await Promise.allSettled(xs.splice(0).map((x) => x.close()));
}
