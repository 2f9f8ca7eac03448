export { agentSession } from './agent-session.js';
export { agentTurn } from './agent-turn.js';
export { resourceLock } from './resource-lock.js';
