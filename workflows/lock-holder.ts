import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { lockWorkflowId, type LockGrant, type LockOptions } from '../src/workflow-safe/lock-types.js';
import {
  lockGrantedSignal,
  lockNextSignal,
  releaseSignal,
  renewSignal,
  withdrawSignal,
} from '../src/workflow-safe/messages.js';

const DEFAULT_LEASE_MS = 30_000;

const { requestLock } = proxyActivities<Activities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 20 },
});

/** A call whose activity waits on the lock for its grant. */
export type Parked = { key: string; requestId: string; leaseMs: number };

const grantKey = (callId: string, key: string) => `${callId}\n${key}`;
const quietly = (p: Promise<unknown>) => p.catch(() => {}); // the lock may be gone; it forgets us anyway

/**
 * The turn's side of the cross-agent locks. (A lock is the per-key resourceLock workflow; a grant
 * hands its key to one call, with a fencing token; a lease is how long a grant lasts unless
 * renewed.) Takes every key of a call in sorted order (so two calls never deadlock), renews the
 * leases while the call runs, and releases all of them — granted or still queued — on success,
 * failure and cancellation alike.
 */
export class LockHolder {
  readonly #grants = new Map<string, LockGrant>();
  /** Requests whose call's activity released them itself (as its write finished). */
  readonly #releasedByCall = new Set<string>();
  /** Requests the lock said are next in line (their call may park its activity). */
  readonly #nexts = new Set<string>();
  readonly #leaseMs: number;

  constructor(
    private readonly jobId: string,
    private readonly options: LockOptions = {},
  ) {
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    // Keyed by call and key, not by request id: the request id holds the workflow id, which a
    // replay (`dagent replay`, CI's history replays) may not reproduce.
    setHandler(lockGrantedSignal, (g) => {
      this.#grants.set(grantKey(g.callId, g.key), g);
    });
    setHandler(lockNextSignal, (n) => {
      this.#nexts.add(grantKey(n.callId, n.key));
    });
  }

  /** The call's activity released these itself: no release signal from here. */
  releasedByCall(requestIds: string[]): void {
    for (const id of requestIds) this.#releasedByCall.add(id);
  }

  /** `round` counts the times a call takes its locks (again after LockLost); each round queues anew. */
  async withLocks<T>(
    callId: string,
    keys: string[],
    onGrant: (g: LockGrant) => void,
    fn: (grants: LockGrant[], parked?: Parked) => Promise<T>,
    round = 1,
  ): Promise<T> {
    const requested: Array<{ key: string; requestId: string }> = [];
    const held: LockGrant[] = [];
    const sorted = [...new Set(keys)].sort();
    // One key: when the lock says the call is next, its activity waits on the lock itself.
    const park = sorted.length === 1 && this.options.park !== false;
    try {
      for (const key of sorted) {
        const requestId = `${this.jobId}/${callId}/${key}${round > 1 ? `#${round}` : ''}`;
        requested.push({ key, requestId });
        await requestLock({
          key,
          request: {
            requestId,
            workflowId: this.jobId,
            callId,
            leaseMs: this.#leaseMs,
            ...(park ? { park: true } : {}),
          },
          options: this.options,
        });
        const k = grantKey(callId, key);
        await condition(() => this.#grants.has(k) || (park && this.#nexts.has(k)));
        if (!this.#grants.has(k)) {
          // Cancelled while its activity waits on the lock: leave the queue at once (the activity
          // hears of the cancel only at its next heartbeat, and must not be granted meanwhile).
          CancellationScope.current().cancelRequested.catch(() =>
            CancellationScope.nonCancellable(() =>
              quietly(getExternalWorkflowHandle(lockWorkflowId(key)).signal(withdrawSignal, { requestId })),
            ),
          );
          return await fn([], { key, requestId, leaseMs: this.#leaseMs });
        }
        const grant = this.#grants.get(k)!;
        held.push(grant);
        onGrant(grant);
      }
      return await this.#renewing(held, () => fn(held));
    } finally {
      await CancellationScope.nonCancellable(() =>
        Promise.all(
          requested
            .filter((r) => !this.#releasedByCall.has(r.requestId))
            .map((r) =>
              quietly(
                getExternalWorkflowHandle(lockWorkflowId(r.key)).signal(releaseSignal, { requestId: r.requestId }),
              ),
            ),
        ),
      );
      for (const r of requested) {
        this.#grants.delete(grantKey(callId, r.key));
        this.#nexts.delete(grantKey(callId, r.key));
        this.#releasedByCall.delete(r.requestId);
      }
    }
  }

  async #renewing<T>(held: LockGrant[], fn: () => Promise<T>): Promise<T> {
    let done = false;
    const renewer = (async () => {
      while (!(await condition(() => done, Math.max(100, Math.floor(this.#leaseMs / 3))))) {
        await Promise.all(
          held.map((g) =>
            quietly(getExternalWorkflowHandle(lockWorkflowId(g.key)).signal(renewSignal, { requestId: g.requestId })),
          ),
        );
      }
    })().catch(() => {}); // on cancellation the call itself reports it; an unawaited rejection would fail the workflow task
    try {
      return await fn();
    } finally {
      done = true;
      await renewer;
    }
  }
}
