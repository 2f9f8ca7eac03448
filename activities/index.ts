import type { ModelConfig } from '../src/config.js';
import type { ToolRegistry } from '../src/tools/registry.js';
import { makeCallModel } from './call-model.js';
import { makeRunTool } from './run-tool.js';

export interface ActivityDeps {
  model: ModelConfig;
  registry: ToolRegistry;
}

/** All activities, built from their dependencies (no module singletons). */
export function createActivities(deps: ActivityDeps) {
  return {
    callModel: makeCallModel(deps.model, deps.registry),
    runTool: makeRunTool(deps.registry),
  };
}

export type Activities = ReturnType<typeof createActivities>;
