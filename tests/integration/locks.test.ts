import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { fileResource } from '../../src/tools/workspace.js';
import { lockWorkflowId } from '../../src/workflow-safe/lock-types.js';
import type { LockOptions } from '../../src/workflow-safe/lock-types.js';
import type { ScriptHandler } from '../../src/scripted-model/server.js';
import { acquireSignal, lockStateQuery, progressQuery } from '../../src/workflow-safe/messages.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { lockTools, type WriteRecord } from '../helpers/lock-tools.js';
import { until } from '../helpers/wait.js';

/** Each agent's task names it; it appends `appends` lines to shared.txt, one per step. */
const appender =
  (appends: number): ScriptHandler =>
  ({ body, step }) => {
    const agent = String(body.messages.find((m) => m.role === 'user')!.content);
    if (step < appends)
      return {
        reply: {
          toolCalls: [{ name: 'append_slow', arguments: { path: 'shared.txt', line: `${agent} line ${step + 1}` } }],
        },
      };
    return { reply: { content: `${agent} done` } };
  };

async function runAgents(h: Harness, agents: number, extra: { locks?: boolean; lockOptions?: LockOptions } = {}) {
  const handles = await Promise.all(
    Array.from({ length: agents }, (_, i) => h.start({ task: `agent-${i + 1}`, ...extra })),
  );
  const results = await Promise.all(handles.map((x) => x.result()));
  assert.deepEqual(
    results.map((r) => r.status),
    Array(agents).fill('completed'),
  );
  return handles;
}

const lines = (h: Harness) => readFileSync(path.join(h.workspace, 'shared.txt'), 'utf8').trim().split('\n');

function assertSerialWithGrowingTokens(writes: WriteRecord[]) {
  const byStart = [...writes].sort((a, b) => a.start - b.start);
  for (let i = 1; i < byStart.length; i++) {
    assert.ok(
      byStart[i]!.start >= byStart[i - 1]!.end,
      `writes ${i - 1} and ${i} overlap: ${JSON.stringify(byStart.slice(i - 1, i + 1))}`,
    );
    assert.ok(
      byStart[i]!.token! > byStart[i - 1]!.token!,
      `fencing token did not grow: ${byStart[i - 1]!.token} then ${byStart[i]!.token}`,
    );
  }
}

describe('cross-agent write locks', () => {
  it('5 agents × 10 read-modify-write appends to one file: all 50 lines, no overlap, growing fencing tokens', async () => {
    const writes: WriteRecord[] = [];
    const h = await startHarness({ tools: [...builtinTools, ...lockTools(writes)], handler: appender(10) });
    try {
      await runAgents(h, 5);
      const got = lines(h);
      assert.equal(got.length, 50);
      assert.equal(new Set(got).size, 50);
      for (let a = 1; a <= 5; a++) {
        assert.deepEqual(
          got.filter((l) => l.startsWith(`agent-${a} `)),
          Array.from({ length: 10 }, (_, i) => `agent-${a} line ${i + 1}`),
          'each agent keeps its own order',
        );
      }
      assert.equal(writes.length, 50);
      assert.ok(writes.every((w) => typeof w.token === 'number'));
      assertSerialWithGrowingTokens(writes);
    } finally {
      await h.close();
    }
  });

  it('without locks (test-only switch) the same agents lose updates', async () => {
    const writes: WriteRecord[] = [];
    const h = await startHarness({ tools: [...builtinTools, ...lockTools(writes)], handler: appender(10) });
    try {
      await runAgents(h, 5, { locks: false });
      assert.equal(writes.length, 50, 'every append ran');
      assert.ok(lines(h).length < 50, `expected lost updates without locks, got ${lines(h).length} lines`);
      assert.ok(writes.every((w) => w.token === undefined));
    } finally {
      await h.close();
    }
  });

  it('a lock that continues-as-new mid-queue loses no waiter and keeps its tokens growing', async () => {
    const writes: WriteRecord[] = [];
    const h = await startHarness({ tools: [...builtinTools, ...lockTools(writes, 50)], handler: appender(3) });
    try {
      await runAgents(h, 4, { lockOptions: { continueAsNewAfterGrants: 2 } });
      assert.equal(lines(h).length, 12);
      assertSerialWithGrowingTokens(writes);
      const key = await fileResource(h.workspace, 'shared.txt');
      const state = await h.client.workflow.getHandle(lockWorkflowId(key)).query(lockStateQuery);
      assert.equal(state.grants, 12);
      assert.ok(state.runs! >= 6, `expected ≥ 6 runs after 12 grants at 2 per run, got ${state.runs}`);
    } finally {
      await h.close();
    }
  });

  it('a holder terminated mid-write loses its lease; a vanished waiter is skipped; a duplicate acquire queues once', async () => {
    const writes: WriteRecord[] = [];
    const h = await startHarness({
      tools: [...builtinTools, ...lockTools(writes)],
      handler: ({ body, step }) => {
        const who = String(body.messages.find((m) => m.role === 'user')!.content);
        if (step > 0) return { reply: { content: 'done' } };
        return who === 'holder'
          ? { reply: { toolCalls: [{ name: 'hold', arguments: { path: 'held.txt', ms: 60_000 } }] } }
          : { reply: { toolCalls: [{ name: 'append_slow', arguments: { path: 'held.txt', line: 'after' } }] } };
      },
    });
    try {
      const key = await fileResource(h.workspace, 'held.txt');
      const lock = h.client.workflow.getHandle(lockWorkflowId(key));
      const holder = await h.start({ task: 'holder', lockOptions: { leaseMs: 2_000 } });
      await until(
        'the holder to get the lock',
        async () => (await lock.query(lockStateQuery)).holder?.workflowId === holder.workflowId,
      );

      const ghost = { requestId: 'ghost/1', workflowId: 'no-such-workflow', callId: 'c', leaseMs: 2_000 };
      await lock.signal(acquireSignal, ghost);
      await lock.signal(acquireSignal, ghost);
      const next = await h.start({ task: 'next' });
      const queue = await until('two waiters', async () => {
        const q = (await lock.query(lockStateQuery)).queue!;
        return q.length === 2 ? q : undefined;
      });
      assert.deepEqual(
        queue.map((w) => w.workflowId),
        ['no-such-workflow', next.workflowId],
      );

      await holder.terminate('test: holder dies while holding the lock');
      assert.equal((await next.result()).status, 'completed');
      assert.equal(readFileSync(path.join(h.workspace, 'held.txt'), 'utf8'), 'after\n');

      const events = (await lock.query(lockStateQuery)).events!;
      const kinds = events.map((e) => `${e.kind}:${e.workflowId}`);
      const at = (k: string) => kinds.indexOf(k);
      assert.ok(at(`expired:${holder.workflowId}`) >= 0, kinds.join(' '));
      assert.ok(at(`skipped:no-such-workflow`) > at(`expired:${holder.workflowId}`), kinds.join(' '));
      assert.ok(at(`granted:${next.workflowId}`) > at('skipped:no-such-workflow'), kinds.join(' '));
      assert.equal(kinds.filter((k) => k === 'queued:no-such-workflow').length, 1);

      const granted = (await next.query(progressQuery, 0)).events.find((e) => e.kind === 'lock_granted');
      assert.ok(granted && granted.kind === 'lock_granted');
      assert.equal(granted.previousHolder, holder.workflowId);
      assert.ok(granted.waitedMs > 0);
    } finally {
      await h.close();
    }
  });
});
