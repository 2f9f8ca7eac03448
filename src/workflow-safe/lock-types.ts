// Plain data of the cross-agent resource locks (workflows/resource-lock.ts).

export interface LockOptions {
  /** A grant lapses unless renewed within this time. Default 30 s; holders renew every third of it. */
  leaseMs?: number;
  /** Continue-as-new after this many grants (Temporal's own suggestion applies too). */
  continueAsNewAfterGrants?: number;
  /** Complete after this long with no holder and no waiter. Default 10 min. */
  idleMs?: number;
  /** Park a single-key write's activity on the lock when it comes next (default true). */
  park?: boolean;
}

/** A holder asks for a key. Idempotent: the same requestId never queues twice. */
export interface AcquireRequest {
  requestId: string;
  /** The workflow that wants the lock; the grant is signalled to it. */
  workflowId: string;
  callId: string;
  leaseMs: number;
  /**
   * The holder parks its tool activity on the lock when it comes next (`lockNext`): the grant then
   * completes the activity's `awaitGrant` Update, and the write starts without a workflow task.
   */
  park?: boolean;
}

/** To a waiting turn: your request is next in line; park the call's activity on the lock now. */
export interface LockNext {
  key: string;
  requestId: string;
  callId: string;
}

export interface LockGrant {
  key: string;
  requestId: string;
  callId: string;
  /** Fencing token: grows with every grant of this key, across continue-as-new and restarts. */
  token: number;
  waitedMs: number;
  /** Who held the key just before (null when it was free). */
  previousHolder: string | null;
  leaseMs: number;
}

export interface ReleaseRequest {
  requestId: string;
}

export type LockEvent =
  | { kind: 'queued'; at: number; requestId: string; workflowId: string; position: number }
  | { kind: 'granted'; at: number; requestId: string; workflowId: string; token: number; waitedMs: number }
  | { kind: 'released'; at: number; requestId: string; workflowId: string; token: number; heldMs: number }
  | { kind: 'expired'; at: number; requestId: string; workflowId: string; token: number }
  | { kind: 'skipped'; at: number; requestId: string; workflowId: string; reason: string }
  | { kind: 'withdrawn'; at: number; requestId: string; workflowId: string };

export interface Holder extends AcquireRequest {
  token: number;
  grantedAt: number;
  leaseExpiresAt: number;
  /** The grant as sent (what a parked activity's Update returns). Absent in holders from before parking. */
  grant?: LockGrant;
}

export interface Waiter extends AcquireRequest {
  queuedAt: number;
  /** Told it is next (`lockNext`). */
  notified?: boolean;
}

/** Everything a lock carries into its next run. */
export interface LockState {
  key: string;
  options: LockOptions;
  nextToken?: number;
  holder?: Holder | null;
  queue?: Waiter[];
  /** Recently finished request ids, so a late duplicate acquire is ignored. */
  finished?: string[];
  /** Recent events, newest last (bounded). */
  events?: LockEvent[];
  runs?: number;
  grants?: number;
}

export const lockWorkflowId = (key: string) => `dagent-lock:${key}`;
