// `durable-agent/workflow`: the workflow-safe entry point. Our workflows (for a team's workflows
// file: `export * from 'durable-agent/workflow'`, and `executeChild(agentTurn, …)` from its own),
// their messages and their types. Nothing here may import Node-specific code.
export { agentSession } from './agent-session.js';
export { agentTurn } from './agent-turn.js';
export { resourceLock } from './resource-lock.js';
export * from '../src/workflow-safe/public.js';
