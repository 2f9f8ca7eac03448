import type { SessionInput, TurnInput, TurnResult } from './types.js';

// The signatures of our workflows, so clients can start them by name with typed arguments
// without importing workflow code.

export type AgentTurnWorkflow = (input: TurnInput) => Promise<TurnResult>;
export type AgentSessionWorkflow = (input: SessionInput) => Promise<void>;
