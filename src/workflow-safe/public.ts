// What both entry points (`durable-agent` and `durable-agent/workflow`) share: the messages of
// our workflows, the job statuses and the plain-data types.
export {
  decideUpdate,
  lockStateQuery,
  pendingApprovalsQuery,
  progressQuery,
  sendUpdate,
  sessionQuery,
} from './messages.js';
export { JOB_STATUSES, TURN_STATUSES, type JobStatus, type TurnStatus } from './job-status.js';
export { TOOL_FORMATS } from './types.js';
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
} from './types.js';
export type { AgentSessionWorkflow, AgentTurnWorkflow } from './workflow-types.js';
