import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { resolveInWorkspace } from '../../src/tools/workspace.js';
import { dagent } from '../helpers/cli.js';
import { until } from '../helpers/wait.js';
import { requestMessages, startHarness } from '../helpers/harness.js';
import { decideUpdate, pendingApprovalsQuery } from '../../src/workflow-safe/messages.js';
import type { PendingApproval } from '../../src/workflow-safe/types.js';

const pendingFor = async (jobId: string) => {
  const r = await dagent(['pending', '--json']);
  const rows = JSON.parse(r.stdout) as Array<{
    jobId: string;
    callId: string;
    name: string;
    args: unknown;
    argsHash: string;
  }>;
  return rows.filter((x) => x.jobId === jobId);
};

describe('approvals', () => {
  it('wait durably across a worker restart; an approval runs the call once with its arguments; a denial reaches the model', async () => {
    const runs: string[] = [];
    const publish = defineTool({
      name: 'publish',
      description: 'Publish a file (needs approval).',
      input: z.object({ path: z.string(), text: z.string() }),
      effect: 'write',
      needsApproval: true,
      execute: async ({ path: p, text }, ctx) => {
        runs.push(`${ctx.callId} ${p} ${text}`);
        (await import('node:fs')).writeFileSync(await resolveInWorkspace(ctx.workspace, p), text);
        return `published ${p}`;
      },
    });
    const h = await startHarness({
      tools: [...builtinTools, publish],
      scenario: {
        name: 'approve',
        steps: [
          { reply: { toolCalls: [{ name: 'publish', arguments: { path: 'release.md', text: 'v1.0' } }] } },
          { reply: { toolCalls: [{ name: 'publish', arguments: { path: 'secrets.md', text: 'oops' } }] } },
          { reply: { content: 'one published, one denied' } },
        ],
      },
    });
    try {
      const handle = await h.start();
      const [first] = await until(
        'the first call to wait',
        async () => (await pendingFor(handle.workflowId)).length === 1 && pendingFor(handle.workflowId),
      );
      assert.deepEqual(
        [first!.callId, first!.name, first!.args],
        ['s1c1', 'publish', { path: 'release.md', text: 'v1.0' }],
      );
      assert.equal(runs.length, 0, 'nothing runs before approval');

      await h.restartWorker();

      const wrongHash = await dagent(['approve', handle.workflowId, 's1c1', '--by', 'alice', '--hash', 'deadbeef']);
      assert.equal(wrongHash.code, 2);
      assert.match(wrongHash.stderr, /not the ones you reviewed/);
      const noBy = await dagent(['approve', handle.workflowId, 's1c1']);
      assert.equal(noBy.code, 2);
      assert.match(noBy.stderr, /required option '--by <name>' not specified/);

      const ok = await dagent([
        'approve',
        handle.workflowId,
        's1c1',
        '--by',
        'alice',
        '--reason',
        'release day',
        '--hash',
        first!.argsHash.slice(0, 8),
      ]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /Approved publish \{"path":"release.md","text":"v1.0"\}/);

      await until('the second call to wait', async () =>
        (await pendingFor(handle.workflowId)).some((p) => p.callId === 's2c1'),
      );
      const no = await dagent(['deny', handle.workflowId, 's2c1', '--by', 'bob', '--reason', 'not public']);
      assert.equal(no.code, 0, no.stderr);

      const r = await handle.result();
      assert.equal(r.answer, 'one published, one denied');
      assert.deepEqual(
        runs,
        ['s1c1 release.md v1.0'],
        'the approved call ran once, with the approved arguments; the denied one never',
      );
      assert.equal(readFileSync(path.join(h.workspace, 'release.md'), 'utf8'), 'v1.0');
      assert.equal(existsSync(path.join(h.workspace, 'secrets.md')), false);
      assert.equal(requestMessages(h.model, 2).at(-1)!.content, 'Denied by bob: not public. The call did not run.');
      assert.deepEqual(await pendingFor(handle.workflowId), []);
      const late = await dagent(['approve', handle.workflowId, 's2c1', '--by', 'carol']);
      assert.equal(late.code, 2);

      const audit = (await dagent(['audit', handle.workflowId, '--json'])).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const calls = audit.filter((x: { type: string }) => x.type === 'tool_call');
      assert.deepEqual(
        calls.map(
          (c: { callId: string; status: string; approval: { approve: boolean; by: string; reason: string } }) => [
            c.callId,
            c.status,
            c.approval.approve,
            c.approval.by,
            c.approval.reason,
          ],
        ),
        [
          ['s1c1', 'ok', true, 'alice', 'release day'],
          ['s2c1', 'denied', false, 'bob', 'not public'],
        ],
      );
      const timeline = (await dagent(['audit', handle.workflowId])).stdout;
      assert.match(timeline, /publish \{"path":"release.md","text":"v1.0"\} {2}approved by alice \(release day\)/);
      assert.match(
        timeline,
        /✗ publish \{"path":"secrets.md","text":"oops"\} {2}denied by bob \(not public\) {2}policy ask \[default:tool-needs-approval\]: not run/,
      );
    } finally {
      await h.close();
    }
  });

  it('a call nobody decides on is denied at its timeout, and the model reads why', async () => {
    const h = await startHarness({
      scenario: {
        name: 'timeout',
        steps: [
          { reply: { toolCalls: [{ name: 'shell', arguments: { command: 'touch ran' } }] } },
          { reply: { content: 'gave up' } },
        ],
      },
    });
    try {
      const handle = await h.start({ requireApproval: ['shell'], approvalTimeoutMs: 1_500 });
      const r = await handle.result();
      assert.equal(r.answer, 'gave up');
      assert.match(
        String(requestMessages(h.model, 1).at(-1)!.content),
        /^Denied by timeout: no decision within 2 s\. The call did not run\.$/,
      );
      assert.equal(existsSync(path.join(h.workspace, 'ran')), false);
      const audit = (await dagent(['audit', handle.workflowId, '--json'])).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const call = audit.find((x: { type: string }) => x.type === 'tool_call');
      assert.deepEqual([call.status, call.approval.approve, call.approval.by], ['denied', false, 'timeout']);
    } finally {
      await h.close();
    }
  });
  it('a repeated or empty provider call id never rides on an earlier approval', async () => {
    const runs: string[] = [];
    const publish = defineTool({
      name: 'publish',
      description: 'Publish (needs approval).',
      input: z.object({ text: z.string() }),
      effect: 'write',
      needsApproval: true,
      execute: ({ text }, ctx) => {
        runs.push(`${ctx.callId} ${text}`);
        return `published ${text}`;
      },
    });
    const h = await startHarness({
      tools: [...builtinTools, publish],
      scenario: {
        name: 'dup-ids',
        steps: [
          {
            reply: {
              toolCalls: [
                { id: 'dup', name: 'publish', arguments: { text: 'harmless' } },
                { id: 'dup', name: 'publish', arguments: { text: 'harmful' } },
              ],
            },
          },
          { reply: { toolCalls: [{ id: 'dup', name: 'publish', arguments: { text: 'again' } }] } },
          { reply: { toolCalls: [{ id: '', name: 'publish', arguments: { text: 'no id' } }] } },
          { reply: { content: 'done' } },
        ],
      },
    });
    try {
      const handle = await h.start();
      const waiting = (n: number) =>
        until(`${n} calls waiting`, async () => {
          const p = await handle.query(pendingApprovalsQuery).catch(() => []);
          return p.length === n && p;
        });
      const decide = (p: PendingApproval, approve: boolean) =>
        handle.executeUpdate(decideUpdate, { args: [{ callId: p.callId, approve, by: 'rev', argsHash: p.argsHash }] });
      // The two writes are barriers (no resources): they wait one after the other, each for its own decision.
      const [first] = await waiting(1);
      assert.deepEqual([first!.callId, (first!.args as { text: string }).text], ['s1c1', 'harmless']);
      await decide(first!, true);
      const [left] = await until('the second call to wait', async () => {
        const p = await handle.query(pendingApprovalsQuery).catch(() => []);
        return p.length === 1 && p[0]!.callId !== 's1c1' && p;
      });
      assert.deepEqual(
        [left!.callId, (left!.args as { text: string }).text],
        ['s1c2', 'harmful'],
        'it waits: the approval of the first, same provider id, does not carry over',
      );
      await decide(left!, false);
      const [again] = await until("the next step's call to wait", async () => {
        const p = await handle.query(pendingApprovalsQuery).catch(() => []);
        return p.length === 1 && p[0]!.callId === 's2c1' && p;
      });
      assert.deepEqual([again!.callId, (again!.args as { text: string }).text], ['s2c1', 'again']);
      await decide(again!, false);
      const [noId] = await until('the call with no id to wait', async () => {
        const p = await handle.query(pendingApprovalsQuery).catch(() => []);
        return p.length === 1 && p[0]!.callId === 's3c1' && p;
      });
      assert.deepEqual([noId!.callId, (noId!.args as { text: string }).text], ['s3c1', 'no id']);
      await decide(noId!, false);
      assert.equal((await handle.result()).status, 'completed');
      assert.deepEqual(runs, ['s1c1 harmless'], 'only the approved call ran');
      // The provider still gets its own ids back.
      const toolMessages = requestMessages(h.model, 1).filter((m) => m.role === 'tool');
      assert.deepEqual(
        toolMessages.map((m) => m.tool_call_id),
        ['dup', 'dup'],
      );
      assert.match(String(toolMessages[1]!.content), /^Denied by rev/);
    } finally {
      await h.close();
    }
  });
});
