import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { startHarness } from '../helpers/harness.js';

async function callModelAttempts(handle: { fetchHistory(): Promise<{ events?: any[] | null }> }): Promise<number[]> {
  const { events } = await handle.fetchHistory();
  const scheduled = new Map<string, string>();
  const attempts: number[] = [];
  for (const e of events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(e.eventId), s.activityType?.name);
    const st = e.activityTaskStartedEventAttributes;
    if (st && scheduled.get(String(st.scheduledEventId)) === 'callModel') attempts.push(st.attempt);
  }
  return attempts;
}

describe('model provider faults', () => {
  it('a 500 is retried, and the history shows both attempts', async () => {
    const h = await startHarness({
      scenario: { name: 'flaky', steps: [{ faults: [{ status: 500 }], reply: { content: 'ok' } }] },
    });
    try {
      const handle = await h.start();
      const r = await handle.result();
      assert.equal(r.status, 'completed');
      assert.equal(r.answer, 'ok');
      assert.deepEqual(
        h.model.requests.map((q) => q.status),
        [500, 200],
      );
      assert.deepEqual(await callModelAttempts(handle), [2]);
    } finally {
      await h.close();
    }
  });

  it('a 429 is retried no sooner than its retry-after says', async () => {
    const h = await startHarness({
      scenario: { name: 'throttled', steps: [{ faults: [{ status: 429, retryAfter: 3 }], reply: { content: 'ok' } }] },
    });
    try {
      assert.equal((await (await h.start()).result()).status, 'completed');
      const [first, second] = h.model.requests;
      assert.deepEqual([first!.status, second!.status], [429, 200]);
      const gap = second!.at - first!.at;
      assert.ok(
        gap >= 2_900,
        `retried after ${gap} ms; retry-after asked for 3000 ms (the default backoff is 1000 ms)`,
      );
    } finally {
      await h.close();
    }
  });

  it('a 401 fails the job at once, naming the cause', async () => {
    const h = await startHarness({
      scenario: {
        name: 'no-auth',
        steps: [{ faults: [{ status: 401, message: 'Incorrect API key provided' }], reply: { content: 'never' } }],
      },
    });
    try {
      const handle = await h.start();
      const err = await handle.result().then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err instanceof WorkflowFailedError, `expected the job to fail, got ${String(err)}`);
      const message = err.cause?.message ?? '';
      assert.match(
        message,
        /Model call failed at step 1: Model call failed with HTTP 401: authentication failed: check OPENAI_API_KEY/,
      );
      assert.match(message, /Incorrect API key provided/);
      assert.equal(h.model.requests.length, 1);
      assert.deepEqual(await callModelAttempts(handle), [1]);
      assert.equal((await handle.describe()).status.name, 'FAILED');
    } finally {
      await h.close();
    }
  });
});

describe('a provider that fails every way in turn', () => {
  it('429 with retry-after, 500, a hang past the timeout, a malformed body: the job completes and the history counts every attempt', async () => {
    const h = await startHarness({
      modelTimeoutMs: 1_000,
      scenario: {
        name: 'gauntlet',
        steps: [
          {
            faults: [
              { status: 429, retryAfter: 1 },
              { status: 500 },
              { delayMs: 3_000 },
              { status: 200, body: '{"choices": [' },
            ],
            reply: { content: 'made it' },
          },
        ],
      },
    });
    try {
      const handle = await h.start();
      const r = await handle.result();
      assert.deepEqual([r.status, r.answer], ['completed', 'made it']);
      assert.deepEqual(
        h.model.requests.map((q) => q.attempt),
        [0, 1, 2, 3, 4],
      );
      assert.deepEqual(
        await callModelAttempts(handle),
        [5],
        'the history records the fifth attempt as the one that succeeded',
      );
      const { events } = await handle.fetchHistory();
      const started = events!.find((e) => e.activityTaskStartedEventAttributes)!.activityTaskStartedEventAttributes!;
      assert.match(
        started.lastFailure!.message!,
        /streamed reply ended after 0 characters before the provider said the reply was complete/,
        'the failure before the last: the malformed body',
      );
    } finally {
      await h.close();
    }
  });
});
