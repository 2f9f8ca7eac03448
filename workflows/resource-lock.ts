import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Holder, LockEvent, LockState, Waiter } from '../src/workflow-safe/lock-types.js';
import {
  acquireSignal,
  awaitGrantUpdate,
  lockGrantedSignal,
  lockNextSignal,
  lockStateQuery,
  releaseSignal,
  renewSignal,
  withdrawSignal,
} from '../src/workflow-safe/messages.js';

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_IDLE_MS = 10 * 60_000;
const KEEP_FINISHED = 1_000;
const KEEP_EVENTS = 200;

const keepLast = <T>(xs: T[], n: number) => (xs.length > n ? xs.slice(xs.length - n) : xs);

/**
 * One resource key's lock, shared by every agent: FIFO grants with a fencing token that only
 * grows, idempotent acquires, leases that lapse unless renewed, grants to vanished holders
 * skipped, continue-as-new carrying the queue. It completes after a long idle spell; the next
 * acquire starts it again (signal-with-start) with tokens seeded from the clock, so they still grow.
 */
export async function resourceLock(input: LockState): Promise<void> {
  const opts = input.options;
  const s = {
    // Token seed: carried over, or the start time ×1000 — above every token an earlier run gave.
    nextToken: input.nextToken ?? Date.now() * 1000,
    holder: input.holder ?? (null as Holder | null),
    queue: input.queue ?? ([] as Waiter[]),
    finished: input.finished ?? ([] as string[]),
    events: input.events ?? ([] as LockEvent[]),
    runs: (input.runs ?? 0) + 1,
    grants: input.grants ?? 0,
  };
  let grantsThisRun = 0;
  const record = (e: LockEvent) => {
    s.events = keepLast([...s.events, e], KEEP_EVENTS);
  };
  const finish = (id: string) => {
    s.finished = keepLast([...s.finished, id], KEEP_FINISHED);
  };
  const known = (id: string) =>
    s.holder?.requestId === id || s.queue.some((w) => w.requestId === id) || s.finished.includes(id);
  /** Set before continue-as-new: parked activities ask again in the next run. */
  let closing = false;
  // The head of the queue, if it parks, is told it is next while the key is held, so that its
  // activity waits on the lock itself and the grant starts its write at once.
  const notifyHead = () => {
    const head = s.queue[0];
    if (!head?.park || head.notified || !s.holder) return;
    s.queue[0] = { ...head, notified: true };
    getExternalWorkflowHandle(head.workflowId)
      .signal(lockNextSignal, { key: input.key, requestId: head.requestId, callId: head.callId })
      .catch(() => {}); // gone: it is skipped when its turn comes
  };

  setHandler(acquireSignal, (req) => {
    if (known(req.requestId)) return; // a retried acquire: never queue twice
    s.queue.push({ ...req, queuedAt: Date.now() });
    record({
      kind: 'queued',
      at: Date.now(),
      requestId: req.requestId,
      workflowId: req.workflowId,
      position: s.queue.length + (s.holder ? 1 : 0),
    });
    notifyHead();
  });
  setHandler(
    awaitGrantUpdate,
    async (requestId) => {
      const queued = () => s.queue.some((w) => w.requestId === requestId);
      await condition(() => s.holder?.requestId === requestId || !queued() || closing);
      const h = s.holder;
      if (h?.requestId === requestId)
        return (
          h.grant ?? {
            key: input.key,
            requestId,
            callId: h.callId,
            token: h.token,
            waitedMs: 0,
            previousHolder: null,
            leaseMs: h.leaseMs,
          }
        );
      if (closing && queued()) return { again: true as const };
      throw ApplicationFailure.create({
        type: 'LockLost',
        message: `The request ${requestId} on ${input.key} is no longer queued or held (released, expired or withdrawn).`,
        nonRetryable: true,
      });
    },
    {
      validator: (requestId) => {
        if (!known(requestId)) throw new Error(`Unknown request ${requestId} on ${input.key}.`);
      },
    },
  );
  const withdraw = (requestId: string) => {
    const waiter = s.queue.find((w) => w.requestId === requestId);
    if (!waiter) return;
    s.queue = s.queue.filter((w) => w !== waiter);
    record({ kind: 'withdrawn', at: Date.now(), requestId, workflowId: waiter.workflowId });
    finish(requestId);
    notifyHead();
  };
  setHandler(withdrawSignal, ({ requestId }) => withdraw(requestId));
  setHandler(releaseSignal, ({ requestId }) => {
    if (s.holder?.requestId === requestId) {
      const h = s.holder;
      record({
        kind: 'released',
        at: Date.now(),
        requestId,
        workflowId: h.workflowId,
        token: h.token,
        heldMs: Date.now() - h.grantedAt,
      });
      s.holder = null;
      finish(requestId);
      return;
    }
    withdraw(requestId);
  });
  setHandler(renewSignal, ({ requestId }) => {
    if (s.holder?.requestId !== requestId) return;
    s.holder = { ...s.holder, leaseExpiresAt: Date.now() + s.holder.leaseMs }; // a new object: wakes the lease wait
  });
  setHandler(lockStateQuery, () => ({ key: input.key, options: opts, ...s }));

  for (;;) {
    if (s.holder) {
      const holder = s.holder;
      const changed = await condition(() => s.holder !== holder, Math.max(1, holder.leaseExpiresAt - Date.now()));
      if (!changed) {
        record({
          kind: 'expired',
          at: Date.now(),
          requestId: holder.requestId,
          workflowId: holder.workflowId,
          token: holder.token,
        });
        finish(holder.requestId);
        s.holder = null;
      }
      continue;
    }
    const wantsNewRun =
      workflowInfo().continueAsNewSuggested ||
      (opts.continueAsNewAfterGrants !== undefined && grantsThisRun >= opts.continueAsNewAfterGrants);
    if (wantsNewRun) {
      closing = true;
      await condition(allHandlersFinished);
      await continueAsNew<typeof resourceLock>({ key: input.key, options: opts, ...s });
    }
    if (s.queue.length === 0) {
      const busy = await condition(() => s.queue.length > 0, opts.idleMs ?? DEFAULT_IDLE_MS);
      if (!busy && s.queue.length === 0 && !s.holder) {
        await condition(allHandlersFinished);
        return;
      }
      continue;
    }
    const next = s.queue.shift()!;
    const previousHolder = [...s.events].reverse().find((e) => e.kind === 'granted')?.workflowId ?? null;
    const now = Date.now();
    const { notified: _n, ...request } = next;
    const token = s.nextToken++;
    const grant = {
      key: input.key,
      requestId: next.requestId,
      callId: next.callId,
      token,
      waitedMs: now - next.queuedAt,
      previousHolder,
      leaseMs: next.leaseMs,
    };
    const holder: Holder = {
      ...request,
      token,
      grantedAt: now,
      leaseExpiresAt: now + (next.leaseMs || DEFAULT_LEASE_MS),
      grant,
    };
    // A parked activity's Update completes now, in this workflow task; the signal (to the turn)
    // tells a turn that did not park, and finds out whether the holder still runs.
    s.holder = holder;
    notifyHead();
    const granted = () => {
      record({
        kind: 'granted',
        at: now,
        requestId: next.requestId,
        workflowId: next.workflowId,
        token: holder.token,
        waitedMs: now - next.queuedAt,
      });
      s.grants++;
      grantsThisRun++;
    };
    // A parked waiter has its grant already (the Update): it may write, release and even finish its
    // job before the signal lands, so its grant counts now.
    if (next.notified) granted();
    try {
      await getExternalWorkflowHandle(next.workflowId).signal(lockGrantedSignal, grant);
      if (!next.notified) granted();
    } catch (err) {
      // A parked holder's activity may be writing even though its job is gone: its lease decides.
      if (next.notified) continue;
      // The holder no longer runs: skip it, never block the queue on it.
      record({
        kind: 'skipped',
        at: Date.now(),
        requestId: next.requestId,
        workflowId: next.workflowId,
        reason: err instanceof Error ? err.message : String(err),
      });
      finish(next.requestId);
      if (s.holder === holder) s.holder = null;
    }
  }
}
