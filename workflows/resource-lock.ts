import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Holder, LockEvent, LockState, Waiter } from '../src/workflow-safe/lock-types.js';
import {
  acquireSignal,
  lockGrantedSignal,
  lockStateQuery,
  releaseSignal,
  renewSignal,
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
  });
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
    const waiter = s.queue.find((w) => w.requestId === requestId);
    if (waiter) {
      s.queue = s.queue.filter((w) => w !== waiter);
      record({ kind: 'withdrawn', at: Date.now(), requestId, workflowId: waiter.workflowId });
      finish(requestId);
    }
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
    const holder: Holder = {
      ...next,
      token: s.nextToken++,
      grantedAt: now,
      leaseExpiresAt: now + (next.leaseMs || DEFAULT_LEASE_MS),
    };
    s.holder = holder;
    try {
      await getExternalWorkflowHandle(next.workflowId).signal(lockGrantedSignal, {
        key: input.key,
        requestId: next.requestId,
        callId: next.callId,
        token: holder.token,
        waitedMs: now - next.queuedAt,
        previousHolder,
        leaseMs: next.leaseMs,
      });
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
    } catch (err) {
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
