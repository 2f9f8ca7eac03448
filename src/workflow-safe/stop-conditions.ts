import type { PlannedCall, TurnInput, TurnStatus, Usage } from './types.js';

export interface Stop {
  status: Exclude<TurnStatus, 'completed'>;
  reason: string;
  /** Ask the model for a summary before ending. */
  summarize: boolean;
}

/** A token or time budget that has run out, if any. */
export function budgetStop(input: TurnInput, usage: Usage, startedAt: number, now: number): Stop | null {
  const summarize = input.summarizeOnBudget ?? true;
  if (input.maxTokens !== undefined && usage.totalTokens >= input.maxTokens) {
    return { status: 'token_budget', reason: `used ${usage.totalTokens} of ${input.maxTokens} tokens`, summarize };
  }
  if (input.deadlineMs !== undefined && now - startedAt >= input.deadlineMs) {
    return {
      status: 'time_budget',
      reason: `ran ${Math.round((now - startedAt) / 1000)} s of a ${Math.round(input.deadlineMs / 1000)} s deadline`,
      summarize,
    };
  }
  return null;
}

/**
 * Tracks, per call signature (tool + arguments), in how many consecutive steps it appeared; says
 * stop when one reaches `repeats`.
 */
export class ProgressWatch {
  #streaks: Map<string, number>;
  constructor(
    private readonly repeats: number,
    carried: Array<[string, number]> = [],
  ) {
    this.#streaks = new Map(carried);
  }

  /** The streaks to carry into a continued run. */
  snapshot(): Array<[string, number]> {
    return [...this.#streaks];
  }

  step(calls: Pick<PlannedCall, 'name' | 'rawArguments'>[]): Stop | null {
    const next = new Map<string, number>();
    for (const c of calls) {
      const sig = `${c.name} ${c.rawArguments}`;
      if (!next.has(sig)) next.set(sig, (this.#streaks.get(sig) ?? 0) + 1);
    }
    this.#streaks = next;
    for (const [sig, n] of next) {
      if (n >= this.repeats)
        return {
          status: 'no_progress',
          reason: `the same call repeated in ${n} consecutive steps: ${sig}`,
          summarize: false,
        };
    }
    return null;
  }
}

export const SUMMARY_REQUEST = (why: string) =>
  `Stop now: ${why}. Do not call any tool. In a few sentences, say what you did, what the result is, and what is left to do.`;
