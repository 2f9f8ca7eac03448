import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { readAudit } from '../../src/client/audit.js';
import { ContentStore } from '../../src/content/store.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { fileResource, resolveInWorkspace } from '../../src/tools/workspace.js';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { lockWorkflowId } from '../../src/workflow-safe/lock-types.js';
import { lockStateQuery } from '../../src/workflow-safe/messages.js';
import { startHarness, tempDir, type Harness } from '../helpers/harness.js';
import { lockTools, type WriteRecord } from '../helpers/lock-tools.js';
import { until } from '../helpers/wait.js';

/** A content store that fails once on a marked text: the disk was full just after a write. */
class FailOnceStore extends ContentStore {
  failed = false;
  override async put(text: string): Promise<string> {
    if (!this.failed && text.includes('FAIL-ONCE')) {
      this.failed = true;
      throw new Error('ENOSPC: no space left on device (injected)');
    }
    return super.put(text);
  }
}

describe('a write releases its lock as it finishes', () => {
  it('a retry after the release takes the lock again (a new, larger token) instead of writing unlocked', async () => {
    const runs: Array<{ token: number | undefined; at: number }> = [];
    // An idempotent write with a long result: the result goes to the content store after the write
    // (and after the release), where the first attempt fails.
    const report = defineTool({
      name: 'write_report',
      description: 'Write report.txt and return it.',
      input: z.object({ text: z.string() }),
      effect: 'write',
      idempotent: true,
      resources: async (_a, ws) => [await fileResource(ws, 'report.txt')],
      execute: async ({ text }, ctx) => {
        const key = await fileResource(ctx.workspace, 'report.txt');
        runs.push({ token: ctx.fencingTokens[key], at: Date.now() });
        await writeFile(await resolveInWorkspace(ctx.workspace, 'report.txt'), text);
        return `FAIL-ONCE ${'x'.repeat(2_000)}`;
      },
    });
    const workspace = tempDir();
    const store = new FailOnceStore(tempDir('dagent-content-'));
    const h = await startHarness({
      tools: [...builtinTools, report],
      store,
      scenario: {
        name: 'lock-lost',
        steps: [
          { reply: { toolCalls: [{ name: 'write_report', arguments: { text: 'the report' } }] } },
          { reply: { content: 'done' } },
        ],
      },
    });
    try {
      const handle = await h.start({ workspace });
      assert.equal((await handle.result()).status, 'completed');
      // It wrote twice: the second time under a new grant, with a larger token.
      assert.equal(runs.length, 2);
      assert.ok(runs[1]!.token! > runs[0]!.token!, `tokens ${runs.map((r) => r.token)}`);
      const key = await fileResource(workspace, 'report.txt');
      const lock = await h.client.workflow.getHandle(lockWorkflowId(key)).query(lockStateQuery);
      const first = `${handle.workflowId}/s1c1/${key}`;
      assert.deepEqual(
        (lock.events ?? []).map((e) => [e.kind, e.requestId]),
        [
          ['queued', first],
          ['granted', first],
          ['released', first],
          ['queued', `${first}#2`],
          ['granted', `${first}#2`],
          ['released', `${first}#2`],
        ],
      );
      // The audit shows both runs of the call: the one whose lock was gone, and the one that counted.
      const runsOfCall = (await readAudit(h.client, handle.workflowId, store)).flatMap((r) =>
        r.type === 'tool_call' ? [[r.callId, r.status, r.locks.map((l) => l.token), r.error] as const] : [],
      );
      assert.equal(runsOfCall.length, 2);
      assert.deepEqual(runsOfCall[0]!.slice(0, 3), ['s1c1', 'failed', [runs[0]!.token]]);
      assert.match(String(runsOfCall[0]![3]), /no longer held by this call: an earlier attempt released it/);
      assert.deepEqual(runsOfCall[1]!.slice(0, 3), ['s1c1', 'ok', [runs[1]!.token]]);
    } finally {
      await h.close();
    }
  });

  const contention = () => {
    const writes: WriteRecord[] = [];
    return {
      writes,
      options: {
        tools: [...builtinTools, ...lockTools(writes, 0)],
        handler: ({ body, step }: { body: { messages: Array<{ role: string; content?: unknown }> }; step: number }) => {
          const task = String(body.messages.find((m) => m.role === 'user')!.content);
          const call =
            task === 'holder'
              ? { name: 'hold', arguments: { path: 'shared.txt', ms: 4_000 } }
              : { name: 'slow_write', arguments: { path: 'shared.txt', content: task } };
          return step === 0 ? { reply: { toolCalls: [call] } } : { reply: { content: 'done' } };
        },
      },
    };
  };
  /** The job's runTool schedulings and lock signals, in history order. */
  const lockStory = async (h: Harness, id: string) =>
    ((await h.client.workflow.getHandle(id).fetchHistory()).events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool'
        ? ['runTool']
        : e.workflowExecutionSignaledEventAttributes?.signalName?.startsWith('lock')
          ? [e.workflowExecutionSignaledEventAttributes.signalName]
          : [],
    );
  /** A holder holding shared.txt for 4 s (long enough for the steps below on a loaded machine), and the lock's state. */
  const withHolder = async (h: Harness) => {
    const key = await fileResource(h.workspace, 'shared.txt');
    const lock = () => h.client.workflow.getHandle(lockWorkflowId(key)).query(lockStateQuery);
    const holder = await h.start({ task: 'holder' });
    await until('the holder to hold the key', async () => (await lock()).holder?.workflowId === holder.workflowId);
    return { holder, lock };
  };

  it('the next waiter parks its write on the lock, so the grant starts it without a workflow task of its job; later waiters do not park yet', async () => {
    const c = contention();
    const h = await startHarness(c.options);
    try {
      const { holder, lock } = await withHolder(h);
      const next = await h.start({ task: 'next' });
      await until('the second job to queue', async () => (await lock()).queue?.length === 1);
      const later = await h.start({ task: 'later' });
      await until('the third job to queue', async () => (await lock()).queue?.length === 2);
      await until('the head to park', async () => (await lockStory(h, next.workflowId)).includes('runTool'));
      assert.deepEqual(await lockStory(h, later.workflowId), [], 'only the head of the queue parks');
      await Promise.all([holder.result(), next.result(), later.result()]);
      // The head's write waited on the lock before its grant; the next one parked when its turn neared.
      assert.deepEqual(await lockStory(h, next.workflowId), ['lockNext', 'runTool', 'lockGranted']);
      assert.deepEqual(await lockStory(h, later.workflowId), ['lockNext', 'runTool', 'lockGranted']);
      assert.deepEqual(
        c.writes.map((w) => w.jobId),
        [next.workflowId, later.workflowId],
      );
      assert.ok(c.writes[1]!.token! > c.writes[0]!.token!);
    } finally {
      await h.close();
    }
  });

  it('a parked waiter that is cancelled withdraws: it never writes, and the lock does not wait for it', async () => {
    const c = contention();
    const h = await startHarness(c.options);
    try {
      const { holder, lock } = await withHolder(h);
      const parked = await h.start({ task: 'parked' });
      await until('the waiter to park', async () => (await lockStory(h, parked.workflowId)).includes('runTool'));
      await parked.cancel();
      await until('its request to be withdrawn', async () =>
        (await lock()).events?.some((e) => e.kind === 'withdrawn' && e.workflowId === parked.workflowId),
      );
      await holder.result();
      const after = await h.start({ task: 'after' });
      await after.result();
      assert.deepEqual(
        c.writes.map((w) => w.jobId),
        [after.workflowId],
      );
      assert.equal((await lock()).holder ?? null, null);
    } finally {
      await h.close();
    }
  });
});
