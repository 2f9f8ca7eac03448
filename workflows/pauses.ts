import { condition, setHandler } from '@temporalio/workflow';
import { pausedQuery, resumeUpdate } from '../src/workflow-safe/messages.js';
import type { PauseKind, ResumeOptions } from '../src/workflow-safe/types.js';

export interface PauseState {
  kind: PauseKind;
  reason: string;
  step: number;
  since: number;
}

/**
 * A turn's pauses: it waits, durably and for as long as it takes, for a resume Update (who, and
 * optionally another model or bigger budgets); an outage may also be retried on a schedule.
 */
export class Pauses {
  #paused: PauseState | null = null;
  #resume: ResumeOptions | null = null;

  constructor() {
    setHandler(pausedQuery, () => this.#paused);
    setHandler(
      resumeUpdate,
      (o) => {
        this.#resume = o;
        return { resumed: true as const, step: this.#paused?.step ?? 0 };
      },
      {
        validator: (o) => {
          if (!this.#paused) throw new Error('The job is not paused.');
          if (!o.by?.trim()) throw new Error('Say who resumes (--by NAME).');
        },
      },
    );
  }

  /** Waits until resumed (or, for an outage with `autoResume`, until the next scheduled try). */
  async wait(p: PauseState, auto?: { everyMs: number; forMs: number }): Promise<ResumeOptions> {
    this.#paused = p;
    this.#resume = null;
    try {
      if (auto && (p.kind === 'outage' || p.kind === 'rate_limit')) {
        // Every try that fails pauses again: the schedule counts from the first pause of this kind.
        if (Date.now() - p.since < auto.forMs && (await condition(() => this.#resume !== null, auto.everyMs)) === false)
          return { by: 'auto-resume' };
      }
      await condition(() => this.#resume !== null);
      return this.#resume!;
    } finally {
      this.#paused = null;
    }
  }
}
