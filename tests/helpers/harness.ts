import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import type { agentTurn } from '../../workflows/agent-turn.js';
import type { ScenarioInput } from '../../src/scripted-model/scenario.js';
import { parseScenario } from '../../src/scripted-model/scenario.js';
import { startScriptedModel, type ScriptedModel, type ScriptHandler } from '../../src/scripted-model/server.js';
import { builtinTools } from '../../src/tools/builtins/index.js';
import type { ToolDefinition } from '../../src/tools/define-tool.js';
import type { TurnInput } from '../../src/workflow-safe/types.js';
import { createAgentWorker } from '../../src/worker/create-worker.js';
import { ContentStore } from '../../src/content/store.js';
import { defaultPolicy, type Policy } from '../../src/policy/index.js';
import type { PriceTable } from '../../src/llm/prices.js';
import type { McpServerConfig } from '../../src/mcp/config.js';
import { installRuntime } from '../../src/worker/runtime.js';
import type { TracingOptions } from '../../src/worker/tracing.js';

export function temporalAddress(): string {
  const a = process.env.TEMPORAL_ADDRESS;
  if (!a) throw new Error('TEMPORAL_ADDRESS is not set: run the tests with `npm test`, which starts a dev server.');
  return a;
}

export const tempDir = (prefix = 'dagent-ws-') => mkdtempSync(path.join(tmpdir(), prefix));

let counter = 0;
export const uniqueId = (prefix: string) => `${prefix}-${process.pid}-${Date.now()}-${++counter}`;

export interface Harness {
  client: Client;
  model: ScriptedModel;
  taskQueue: string;
  workspace: string;
  start(input?: Partial<TurnInput>, jobId?: string): Promise<WorkflowHandle<typeof agentTurn>>;
  /** Stops the worker (as a deploy or a crash would) and starts a fresh one on the same task queue. */
  restartWorker(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A scripted model over real HTTP, a real worker on its own task queue against the shared dev
 * server, a client and a fresh workspace folder.
 */
export async function startHarness(o: {
  scenario?: ScenarioInput;
  handler?: ScriptHandler;
  tools?: ToolDefinition<any>[];
  modelTimeoutMs?: number;
  /** Streamed replies (the default) or whole ones; and how long a stream may stall. */
  modelStream?: boolean;
  modelStallMs?: number;
  /** A content store folder of its own (each worker gets a fresh store on it: a cold cache). */
  contentDir?: string;
  /** The workers' content store itself (to inject its failures). */
  store?: ContentStore;
  /** OpenTelemetry tracing of the worker. */
  tracing?: TracingOptions;
  /** The worker's policy; the built-in default when absent. */
  policy?: Policy;
  /** The worker's price table; the built-in one when absent. */
  prices?: PriceTable;
  /** MCP servers whose tools the worker adds. */
  mcpServers?: McpServerConfig[];
}): Promise<Harness> {
  const address = temporalAddress();
  installRuntime('ERROR');
  const model = await startScriptedModel({
    ...(o.scenario ? { scenario: parseScenario(o.scenario) } : {}),
    ...(o.handler ? { handler: o.handler } : {}),
  });
  const taskQueue = uniqueId('tq');
  const newWorker = async () => {
    const w = await createAgentWorker({
      address,
      namespace: 'default',
      taskQueue,
      model: {
        baseURL: model.url,
        apiKey: process.env.OPENAI_API_KEY ?? 'test-key',
        model: 'scripted',
        timeoutMs: o.modelTimeoutMs ?? 10_000,
        ...(o.modelStream !== undefined ? { stream: o.modelStream } : {}),
        ...(o.modelStallMs !== undefined ? { stallMs: o.modelStallMs } : {}),
      },
      tools: o.tools ?? builtinTools,
      ...(o.contentDir ? { store: new ContentStore(o.contentDir) } : {}),
      ...(o.store ? { store: o.store } : {}),
      ...(o.tracing ? { tracing: o.tracing } : {}),
      ...(o.policy ? { policy: o.policy } : {}),
      ...(o.prices ? { prices: o.prices } : {}),
      ...(o.mcpServers ? { mcpServers: o.mcpServers } : {}),
      warn: () => {},
    });
    return { worker: w, running: w.run() };
  };
  let current = await newWorker();
  const stopWorker = async () => {
    current.worker.shutdown();
    await current.running;
  };
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const workspace = tempDir();
  return {
    client,
    model,
    taskQueue,
    workspace,
    start: (input = {}, jobId = uniqueId('job')) =>
      client.workflow.start<typeof agentTurn>('agentTurn', {
        taskQueue,
        workflowId: jobId,
        args: [{ task: 'test task', workspace, ...input }],
      }),
    async restartWorker() {
      await stopWorker();
      current = await newWorker();
    },
    async close() {
      await stopWorker();
      await connection.close();
      await model.close();
    },
  };
}

/** A policy that allows every shell command (the dangerous-command check still applies). */
export function shellAllowed(): Policy {
  const p = defaultPolicy();
  return {
    ...p,
    source: 'test',
    rules: [{ name: 'test:any-shell', tools: ['shell'], commands: ['*'], decision: 'allow' }],
  };
}

/** The messages of the n-th (0-based) model request the scripted server saw. */
export function requestMessages(model: ScriptedModel, n: number) {
  const r = model.requests.filter((q) => q.status === 200)[n];
  if (!r) throw new Error(`no successful model request #${n}; saw ${model.requests.length} requests`);
  return r.body.messages;
}

/** What a tool handler gets besides its arguments, for calling tools directly in unit tests. */
export const toolContext = (workspace = tempDir()) => ({
  workspace,
  jobId: 'j',
  callId: 'c',
  idempotencyKey: 'j:c',
  fencingTokens: {},
  signal: new AbortController().signal,
  heartbeat: () => {},
  policy: defaultPolicy(),
});
