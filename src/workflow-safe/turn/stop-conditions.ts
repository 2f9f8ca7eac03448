import type { PlannedCall, TurnInput, TurnState, TurnStatus } from '../types.js';

// When a turn stops before a final answer: small predicates over the turn's state.

export const DEFAULT_MAX_STEPS = 20;
export const DEFAULT_NO_PROGRESS_REPEATS = 3;

export interface Stop {
  status: Exclude<TurnStatus, 'completed'>;
  reason: string;
  /** Ask the model for a summary before ending. */
  summarize: boolean;
}

/** The step limit reached. */
export function maxStepsStop(input: TurnInput, s: TurnState): Stop | null {
  const max = input.maxSteps ?? DEFAULT_MAX_STEPS;
  return s.step >= max ? { status: 'max_steps', reason: `reached the limit of ${max} steps`, summarize: false } : null;
}

/** A token or time budget that has run out, if any. */
export function budgetStop(input: TurnInput, s: TurnState, now: number): Stop | null {
  const summarize = input.summarizeOnBudget ?? true;
  if (input.maxTokens !== undefined) {
    const used = s.usage.totalTokens;
    if (used >= input.maxTokens)
      return { status: 'token_budget', reason: `used ${used} of ${input.maxTokens} tokens`, summarize };
    // The next call is reserved before it is made: its prompt holds at least the last call's
    // prompt and reply, so a call that would overrun the budget is not started.
    const next = s.lastCallTokens ?? 0;
    if (used + next > input.maxTokens)
      return {
        status: 'token_budget',
        reason: `used ${used} of ${input.maxTokens} tokens, and the next call needs about ${next}`,
        summarize,
      };
  }
  if (input.maxCostUsd !== undefined) {
    const max = input.maxCostUsd;
    const spent = s.costUsd ?? 0;
    const usd = (x: number) => `$${x.toFixed(4)}`;
    const next = s.lastCallCostUsd ?? 0;
    if (spent >= max || spent + next > max)
      return {
        status: 'cost_budget',
        reason: `spent ${usd(spent)} of ${usd(max)}${spent < max ? `, and the next call costs about ${usd(next)}` : ''}`,
        summarize,
      };
  }
  if (input.deadlineMs !== undefined && now - s.startedAt >= input.deadlineMs) {
    const ran = Math.round((now - s.startedAt) / 1000);
    return {
      status: 'time_budget',
      reason: `ran ${ran} s of a ${Math.round(input.deadlineMs / 1000)} s deadline`,
      summarize,
    };
  }
  return null;
}

/**
 * The streaks after one step: per call signature (tool + arguments), in how many consecutive
 * steps it appeared; and a stop when one reaches `repeats`.
 */
export function nextStreaks(
  streaks: TurnState['streaks'],
  calls: Pick<PlannedCall, 'name' | 'rawArguments'>[],
  repeats: number,
): { streaks: TurnState['streaks']; stop: Stop | null } {
  const before = new Map(streaks);
  const next = new Map<string, number>();
  for (const c of calls) {
    const sig = `${c.name} ${c.rawArguments}`;
    if (!next.has(sig)) next.set(sig, (before.get(sig) ?? 0) + 1);
  }
  for (const [sig, n] of next) {
    if (n >= repeats) {
      return {
        streaks: [...next],
        stop: {
          status: 'no_progress',
          reason: `the same call repeated in ${n} consecutive steps: ${sig}`,
          summarize: false,
        },
      };
    }
  }
  return { streaks: [...next], stop: null };
}

export const SUMMARY_REQUEST = (why: string) =>
  `Stop now: ${why}. Do not call any tool. In a few sentences, say what you did, what the result is, and what is left to do.`;
