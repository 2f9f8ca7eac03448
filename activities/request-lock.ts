import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { acquireSignal } from '../src/workflow-safe/messages.js';
import { lockWorkflowId, type AcquireRequest, type LockOptions } from '../src/workflow-safe/lock-types.js';

/**
 * Queues a request at a key's lock workflow, starting the lock if it is not running
 * (signal-with-start). Safe to retry: the lock ignores a request id it already knows.
 */
export function makeRequestLock(client: Client) {
  return async function requestLock(req: {
    key: string;
    request: AcquireRequest;
    options: LockOptions;
  }): Promise<void> {
    await client.workflow.signalWithStart('resourceLock', {
      workflowId: lockWorkflowId(req.key),
      taskQueue: Context.current().info.taskQueue,
      args: [{ key: req.key, options: req.options }],
      signal: acquireSignal,
      signalArgs: [req.request],
    });
  };
}
