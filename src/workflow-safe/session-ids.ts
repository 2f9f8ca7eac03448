/** The id of a session's n-th turn: each turn is its own job, with its own history and audit. */
export const turnJobId = (sessionId: string, turn: number) => `${sessionId}-turn-${turn}`;
