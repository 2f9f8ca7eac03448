import type { Client } from '@temporalio/client';
import type { ModelConfig } from '../src/config.js';
import type { Redactor } from '../src/audit/redact.js';
import type { ContentStore } from '../src/content/store.js';
import type { PriceTable } from '../src/llm/prices.js';
import type { ToolRegistry } from '../src/tools/registry.js';
import type { AgentMetrics } from '../src/worker/metrics.js';
import { makeCallModel } from './call-model.js';
import { makeCompactConversation } from './compact.js';
import { makeRequestLock } from './request-lock.js';
import { makeRunTool } from './run-tool.js';

export interface ActivityDeps {
  model: ModelConfig;
  registry: ToolRegistry;
  /** For activities that talk to other workflows (lock requests). */
  client: Client;
  /** Applied to everything the activities return, before it reaches history. */
  redact: Redactor;
  /** Where long tool outputs go instead of history. */
  store: ContentStore;
  /** Model prices for cost budgets (USD per million tokens). */
  prices: PriceTable;
  /** Counters and histograms on the worker's metrics endpoint. */
  metrics?: AgentMetrics;
}

/** All activities, built from their dependencies (no module singletons). */
export function createActivities(deps: ActivityDeps) {
  return {
    callModel: makeCallModel(deps.model, deps.registry, deps.redact, deps.store, deps.prices, undefined, deps.metrics),
    runTool: makeRunTool(deps.registry, deps.redact, deps.store, deps.client, deps.metrics),
    compactConversation: makeCompactConversation(deps.store),
    requestLock: makeRequestLock(deps.client),
  };
}

export type Activities = ReturnType<typeof createActivities>;
