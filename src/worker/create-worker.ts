import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type LogLevel } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import type { ModelConfig } from '../config.js';
import { builtinTools } from '../tools/builtins/index.js';
import type { ToolDefinition } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/registry.js';
import { makeRedactor } from '../audit/redact.js';
import { ContentStore } from '../content/store.js';
import { ensureSearchAttributes } from '../temporal/search-attributes.js';
import { cachedWorkflowBundle } from './bundle-cache.js';
import { installRuntime } from './runtime.js';

export interface AgentWorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  model: ModelConfig;
  /** Tools this worker offers; the built-ins when absent. */
  tools?: ToolDefinition<any>[];
  maxConcurrentActivities?: number;
  logLevel?: LogLevel;
}

/**
 * A worker for agent turns. Workflow code is bundled once per source version and cached in the
 * data folder; DAGENT_WORKFLOW_BUNDLE names a prebuilt bundle instead (the test runner's).
 */
export async function createAgentWorker(o: AgentWorkerOptions): Promise<{ worker: Worker; connection: { close(): Promise<void> } }> {
  installRuntime(o.logLevel);
  const connection = await NativeConnection.connect({ address: o.address });
  const registry = new ToolRegistry(o.tools ?? builtinTools);
  const clientConnection = await Connection.connect({ address: o.address });
  const client = new Client({ connection: clientConnection, namespace: o.namespace });
  await ensureSearchAttributes(client, o.namespace);
  const bundlePath = process.env.DAGENT_WORKFLOW_BUNDLE ?? (await cachedWorkflowBundle());
  const worker = await Worker.create({
    connection,
    namespace: o.namespace,
    taskQueue: o.taskQueue,
    workflowBundle: { codePath: bundlePath },
    activities: createActivities({ model: o.model, registry, client, redact: makeRedactor(), store: new ContentStore() }),
    maxConcurrentActivityTaskExecutions: o.maxConcurrentActivities ?? 100,
  });
  return {
    worker,
    connection: {
      async close() {
        await connection.close();
        await clientConnection.close();
      },
    },
  };
}
