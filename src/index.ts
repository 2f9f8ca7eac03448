// `durable-agent`: the Node entry point — tools, workers, starting jobs, reading their audit.
// Workflow code imports `durable-agent/workflow` instead.

export { defineTool, ToolInputError, type ToolContext, type ToolDefinition } from './tools/define-tool.js';
export { builtinTools } from './tools/builtins/index.js';
export { calculator } from './tools/builtins/calculator.js';
export { editFileTool } from './tools/builtins/edit-file.js';
export { listFilesTool } from './tools/builtins/list-files.js';
export { readFileTool } from './tools/builtins/read-file.js';
export { searchFilesTool } from './tools/builtins/search-files.js';
export { shellTool } from './tools/shell/tool.js';
export { writeFileTool } from './tools/builtins/write-file.js';
export { fileResource, resolveInWorkspace, type ResourceContext } from './tools/workspace.js';

export {
  agentPlugin,
  createAgentActivities,
  createAgentWorker,
  type AgentActivityOptions,
  type AgentWorkerOptions,
} from './worker/create-worker.js';
export { installRuntime } from './worker/runtime.js';
export { tracingFor, type TracingOptions } from './worker/tracing.js';
export { startUiServer, type UiServer, type UiServerOptions } from './ui/server.js';
export { modelConfigFromEnv, type ModelConfig } from './config.js';
export { loadMcpConfig, type McpServerConfig } from './mcp/config.js';
export { McpPool } from './mcp/pool.js';
export {
  decide,
  defaultPolicy,
  loadPolicyFile,
  parsePolicy,
  PolicyError,
  type Policy,
  type PolicyRule,
  type PolicyVerdict,
} from './policy/index.js';
export { ContentStore, FolderBlobs, type BlobBackend } from './content/store.js';
export { PostgresBlobs } from './content/postgres-blobs.js';
export { makeRedactor, type Redactor } from './audit/redact.js';

export { JobExistsError, newJobId, startJob, type StartJobOptions } from './client/start-job.js';
export { fetchJobRuns, readAudit } from './client/audit.js';
export { formatTimeline } from './audit/timeline.js';
export { AUDIT_SCHEMA_VERSION, type AuditRecord, type ModelCallRecord, type ToolCallRecord } from './audit/schema.js';

export { startScriptedModel, type ScriptedModel } from './scripted-model/server.js';
export { parseScenario, type ScenarioInput } from './scripted-model/scenario.js';

export * from './workflow-safe/public.js';
