// Queries and signals of the turn and lock workflows, defined once for workflows and clients.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AcquireRequest, LockGrant, LockNext, LockState, ReleaseRequest } from './lock-types.js';
import type {
  ApprovalDecision,
  PendingApproval,
  ProgressEvent,
  ResumeOptions,
  SessionReply,
  SessionState,
} from './types.js';

/**
 * Progress events of a turn from index `since` on, counted across continue-as-new; `next` is
 * the index to ask from next time.
 */
export const progressQuery = defineQuery<{ events: ProgressEvent[]; next: number }, [number]>('progress');

/** To a lock: queue me. */
export const acquireSignal = defineSignal<[AcquireRequest]>('acquire');
/** To a lock: I am done (or no longer want it). */
export const releaseSignal = defineSignal<[ReleaseRequest]>('release');
/** To a lock: take me out of the queue if I am still in it (never releases a holder). */
export const withdrawSignal = defineSignal<[ReleaseRequest]>('withdraw');
/** To a lock: I am still working; extend my lease. */
export const renewSignal = defineSignal<[ReleaseRequest]>('renew');
/** To a turn: you hold the key now. */
export const lockGrantedSignal = defineSignal<[LockGrant]>('lockGranted');
/** To a turn: your request is next; park the call's activity on the lock (awaitGrant). */
export const lockNextSignal = defineSignal<[LockNext]>('lockNext');
/**
 * To a lock, from a parked tool activity: completes when the request is granted (the grant), or
 * says to ask again (the lock continued-as-new); fails when the request is no longer queued or held.
 */
export const awaitGrantUpdate = defineUpdate<LockGrant | { again: true }, [string]>('awaitGrant');
/** A lock's current state: holder, queue, recent events. */
export const lockStateQuery = defineQuery<LockState>('lockState');

/** Calls of a turn waiting for a human decision. */
export const pendingApprovalsQuery = defineQuery<PendingApproval[]>('pendingApprovals');
/** Approve or deny one waiting call; refused unless the call waits and the hash matches. */
export const decideUpdate = defineUpdate<{ accepted: true; callId: string }, [ApprovalDecision]>('decide');

/** To a session: run one turn with this message; returns the turn's result. */
export const sendUpdate = defineUpdate<SessionReply, [string]>('send');
/** A session's counters. */
export const sessionQuery = defineQuery<SessionState>('session');

/** Why a paused job waits (null while it is not paused). */
export const pausedQuery = defineQuery<{ kind: string; reason: string; step: number; since: number } | null>('paused');
/** Continue a paused job, optionally with another model or bigger budgets; refused unless it is paused. */
export const resumeUpdate = defineUpdate<{ resumed: true; step: number }, [ResumeOptions]>('resume');
