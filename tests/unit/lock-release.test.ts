import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { awaitGrant } from '../../activities/lock-release.js';
import type { LockGrant } from '../../src/workflow-safe/lock-types.js';

// How a parked write's activity waits for its grant: which answers of the lock's Update end the
// wait, which are asked again. (Against a real server: tests/integration/lock-handoff.test.ts.)

const park = { key: 'file:/w/a.txt', requestId: 'job/s1c1/file:/w/a.txt', leaseMs: 30_000 };
const grant: LockGrant = { ...park, callId: 's1c1', token: 7, waitedMs: 12, previousHolder: 'other' };

/** A client whose lock answers the Update with these, in turn. */
function lockAnswering(answers: Array<() => unknown>): { client: Client; calls: () => number } {
  let n = 0;
  const client = {
    workflow: {
      getHandle: () => ({
        executeUpdate: async () => {
          const answer = answers[Math.min(n++, answers.length - 1)]!;
          return answer();
        },
      }),
    },
  } as unknown as Client;
  return { client, calls: () => n };
}

const never = new AbortController().signal;

describe('a parked write waiting for its grant', () => {
  it('asks again after errors that are not refusals (a run ending as the Update arrived, the network)', async () => {
    const lock = lockAnswering([
      () => {
        throw new ServiceError('Workflow Update failed', {
          cause: new Error('9 FAILED_PRECONDITION: unexpected workflow task failure'),
        });
      },
      () => ({ again: true }),
      () => grant,
    ]);
    assert.deepEqual(await awaitGrant(lock.client, park, never), grant);
    assert.equal(lock.calls(), 3);
  });

  it('a refusal, or a lock that no longer runs, is LockLost: the call queues again', async () => {
    for (const refusal of [
      () => {
        throw new WorkflowUpdateFailedError('Workflow Update failed', new Error('no longer queued or held'));
      },
      () => {
        throw new WorkflowNotFoundError('not found', 'dagent-lock:file:/w/a.txt', undefined);
      },
    ]) {
      const lock = lockAnswering([refusal]);
      await assert.rejects(
        awaitGrant(lock.client, park, never),
        (err: unknown) => err instanceof ApplicationFailure && err.type === 'LockLost' && err.nonRetryable,
      );
      assert.equal(lock.calls(), 1);
    }
  });

  it('stops at once when the job is cancelled', async () => {
    const lock = lockAnswering([() => new Promise(() => {})]);
    const cancel = new AbortController();
    const waiting = awaitGrant(lock.client, park, cancel.signal);
    cancel.abort();
    await assert.rejects(waiting, (err: unknown) => err instanceof CancelledFailure);
  });
});
