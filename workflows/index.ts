export { agentTurn } from './agent-turn.js';
export { resourceLock } from './resource-lock.js';
