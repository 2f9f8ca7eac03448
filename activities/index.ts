import type { Client } from '@temporalio/client';
import type { ModelConfig } from '../src/config.js';
import type { ToolRegistry } from '../src/tools/registry.js';
import { makeCallModel } from './call-model.js';
import { makeRequestLock } from './request-lock.js';
import { makeRunTool } from './run-tool.js';

export interface ActivityDeps {
  model: ModelConfig;
  registry: ToolRegistry;
  /** For activities that talk to other workflows (lock requests). */
  client: Client;
}

/** All activities, built from their dependencies (no module singletons). */
export function createActivities(deps: ActivityDeps) {
  return {
    callModel: makeCallModel(deps.model, deps.registry),
    runTool: makeRunTool(deps.registry),
    requestLock: makeRequestLock(deps.client),
  };
}

export type Activities = ReturnType<typeof createActivities>;
