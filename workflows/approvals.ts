import { condition, setHandler } from '@temporalio/workflow';
import { humanDuration } from '../src/workflow-safe/duration.js';
import type { ApprovalDecision, PendingApproval, RunnableCall } from '../src/workflow-safe/types.js';
import { decideUpdate, pendingApprovalsQuery } from '../src/workflow-safe/messages.js';

export const DEFAULT_APPROVAL_TIMEOUT_MS = 24 * 3600_000;

/**
 * Durable approvals: a call waits (for days if need be) for a decide Update carrying who
 * decided, why, and the hash of the exact arguments it approves; a timeout is a denial.
 */
export class Approvals {
  readonly #pending = new Map<string, PendingApproval>();
  readonly #decided = new Map<string, ApprovalDecision>();

  constructor() {
    setHandler(pendingApprovalsQuery, () => [...this.#pending.values()]);
    setHandler(
      decideUpdate,
      (d) => {
        this.#decided.set(d.callId, d);
        return { accepted: true as const, callId: d.callId };
      },
      {
        validator: (d) => {
          const p = this.#pending.get(d.callId);
          if (!p)
            throw new Error(
              `No call '${d.callId}' of this job waits for approval (waiting: ${[...this.#pending.keys()].join(', ') || 'none'}).`,
            );
          if (d.argsHash !== p.argsHash)
            throw new Error(
              `The decision is for other arguments (hash ${d.argsHash.slice(0, 12)}…) than call '${d.callId}' has (${p.argsHash.slice(0, 12)}…).`,
            );
          if (!d.by?.trim()) throw new Error('Say who decides (--by NAME).');
        },
      },
    );
  }

  get waiting(): number {
    return this.#pending.size;
  }

  async decide(call: RunnableCall, step: number, timeoutMs: number): Promise<ApprovalDecision> {
    const now = Date.now();
    this.#pending.set(call.id, {
      callId: call.id,
      step,
      name: call.name,
      args: call.args,
      argsHash: call.argsHash,
      requestedAt: now,
      timeoutAt: now + timeoutMs,
      ...(call.policy ? { policy: call.policy } : {}),
    });
    // Only a decision for these exact arguments counts, and it is used once: a later call can never
    // run on an earlier approval, whatever id it has.
    const forThis = () => this.#decided.get(call.id)?.argsHash === call.argsHash;
    try {
      const decided = await condition(forThis, timeoutMs);
      if (!decided) {
        return {
          callId: call.id,
          approve: false,
          by: 'timeout',
          reason: `no decision within ${humanDuration(timeoutMs)}`,
          argsHash: call.argsHash,
        };
      }
      return this.#decided.get(call.id)!;
    } finally {
      this.#pending.delete(call.id);
      this.#decided.delete(call.id);
    }
  }
}
