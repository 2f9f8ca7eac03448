import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { lockWorkflowId } from '../src/workflow-safe/lock-types.js';
import { lockStateQuery, releaseSignal } from '../src/workflow-safe/messages.js';
import type { ToolRequest } from '../src/workflow-safe/types.js';

type Held = NonNullable<ToolRequest['release']>;

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
      throw ApplicationFailure.create({
        type: 'LockLost',
        message: `The lock on ${h.key} (token ${h.token}) is no longer held by this call: an earlier attempt released it. The call takes the lock again.`,
        nonRetryable: true,
      });
  }
}

/** Releases the locks as the write finishes; true when every release reached its lock. */
export async function releaseNow(client: Client, held: Held): Promise<boolean> {
  const sent = await Promise.allSettled(
    held.map((h) => client.workflow.getHandle(lockWorkflowId(h.key)).signal(releaseSignal, { requestId: h.requestId })),
  );
  return sent.every((r) => r.status === 'fulfilled');
}
