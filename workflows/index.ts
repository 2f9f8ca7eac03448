export { agentTurn } from './agent-turn.js';
