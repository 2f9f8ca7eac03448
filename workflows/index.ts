// `durable-agent/workflow`: the workflow-safe entry point. Our workflows (for a team's workflows
// file: `export * from 'durable-agent/workflow'`, and `executeChild(agentTurn, …)` from its own),
// their messages and their types. Nothing here may import Node-specific code.
export { agentSession } from './agent-session.js';
export { agentTurn } from './agent-turn.js';
export { resourceLock } from './resource-lock.js';
export {
  decideUpdate,
  pendingApprovalsQuery,
  progressQuery,
  sendUpdate,
  sessionQuery,
  lockStateQuery,
} from '../src/workflow-safe/messages.js';
export { JOB_STATUSES, TURN_STATUSES, type JobStatus, type TurnStatus } from '../src/workflow-safe/job-status.js';
export { TOOL_FORMATS } from '../src/workflow-safe/types.js';
export type {
  ApprovalDecision,
  ChatMessage,
  PendingApproval,
  ProgressEvent,
  SessionInput,
  SessionReply,
  ToolFormat,
  TurnInput,
  TurnResult,
  Usage,
} from '../src/workflow-safe/types.js';
export type { AgentSessionWorkflow, AgentTurnWorkflow } from '../src/workflow-safe/workflow-types.js';
