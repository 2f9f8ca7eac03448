import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { lockWorkflowId, type LockGrant } from '../src/workflow-safe/lock-types.js';
import { awaitGrantUpdate, lockStateQuery, releaseSignal, renewSignal } from '../src/workflow-safe/messages.js';
import type { ToolRequest } from '../src/workflow-safe/types.js';

type Held = NonNullable<ToolRequest['release']>;
type Park = NonNullable<ToolRequest['park']>;

/** How often a parked write asks its lock again after an error that is not a refusal. */
const ASK_AGAIN_LIMIT = 60;

const lockLost = (message: string) => ApplicationFailure.create({ type: 'LockLost', message, nonRetryable: true });

/**
 * A retried attempt of a write runs only under the locks its call was granted. If an earlier
 * attempt already released them (it wrote, then its worker died before the result was recorded),
 * the call must queue again: it fails with LockLost, and the workflow takes the locks anew.
 */
export async function ensureStillHeld(client: Client, held: Held): Promise<void> {
  for (const h of held) {
    const state = await client.workflow
      .getHandle(lockWorkflowId(h.key))
      .query(lockStateQuery)
      .catch(() => null);
    if (state?.holder?.requestId !== h.requestId || state.holder.token !== h.token)
      throw lockLost(
        `The lock on ${h.key} (token ${h.token}) is no longer held by this call: an earlier attempt released it. The call takes the lock again.`,
      );
  }
}

/** Releases the locks as the write finishes; true when every release reached its lock. */
export async function releaseNow(client: Client, held: Held): Promise<boolean> {
  const sent = await Promise.allSettled(
    held.map((h) => client.workflow.getHandle(lockWorkflowId(h.key)).signal(releaseSignal, { requestId: h.requestId })),
  );
  return sent.every((r) => r.status === 'fulfilled');
}

/**
 * A parked write waits here, in its activity, for its grant: the lock completes the Update in the
 * workflow task that grants it, so the write starts without a workflow task of the job. A retried
 * attempt gets the grant it already had, or LockLost when it is gone.
 */
export async function awaitGrant(client: Client, park: Park, cancelled: AbortSignal): Promise<LockGrant> {
  const handle = client.workflow.getHandle(lockWorkflowId(park.key));
  const stop = new Promise<never>((_, reject) => {
    const abort = () => reject(new CancelledFailure('lock wait stopped: the job was cancelled'));
    if (cancelled.aborted) abort();
    else cancelled.addEventListener('abort', abort, { once: true });
  });
  for (let tries = 1; ; tries++) {
    let r: LockGrant | { again: true };
    try {
      r = await Promise.race([handle.executeUpdate(awaitGrantUpdate, { args: [park.requestId] }), stop]);
    } catch (err) {
      // Refused (no longer queued or held) is final. Anything else — the lock's run ending
      // (continue-as-new) as the Update arrived, the server, the network — is asked again here,
      // not by retrying the activity: a write that is not idempotent gets one attempt.
      if (err instanceof WorkflowUpdateFailedError)
        throw lockLost(`${park.key}: ${(err.cause as Error | undefined)?.message ?? err.message}`);
      // The lock ends only when nobody holds or waits: the request is gone.
      if (err instanceof WorkflowNotFoundError) throw lockLost(`${park.key}: the lock is no longer running`);
      if (err instanceof CancelledFailure || tries >= ASK_AGAIN_LIMIT) throw err;
      await Promise.race([new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * tries))), stop]);
      continue;
    }
    if (!('again' in r)) return r;
  }
}

/** Renews a parked write's lease while it runs (its turn does not know it holds the lock yet). */
export function renewWhileRunning(client: Client, g: LockGrant): () => void {
  const t = setInterval(
    () =>
      void client.workflow
        .getHandle(lockWorkflowId(g.key))
        .signal(renewSignal, { requestId: g.requestId })
        .catch(() => {}),
    Math.max(100, Math.floor(g.leaseMs / 3)),
  );
  return () => clearInterval(t);
}
