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
        ['call_1_1', 'publish', { path: 'release.md', text: 'v1.0' }],
      );
      assert.equal(runs.length, 0, 'nothing runs before approval');

      await h.restartWorker();

      const wrongHash = await dagent(['approve', handle.workflowId, 'call_1_1', '--by', 'alice', '--hash', 'deadbeef']);
      assert.equal(wrongHash.code, 2);
      assert.match(wrongHash.stderr, /not the ones you reviewed/);
      const noBy = await dagent(['approve', handle.workflowId, 'call_1_1']);
      assert.equal(noBy.code, 2);
      assert.match(noBy.stderr, /required option '--by <name>' not specified/);

      const ok = await dagent([
        'approve',
        handle.workflowId,
        'call_1_1',
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
        (await pendingFor(handle.workflowId)).some((p) => p.callId === 'call_2_1'),
      );
      const no = await dagent(['deny', handle.workflowId, 'call_2_1', '--by', 'bob', '--reason', 'not public']);
      assert.equal(no.code, 0, no.stderr);

      const r = await handle.result();
      assert.equal(r.answer, 'one published, one denied');
      assert.deepEqual(
        runs,
        ['call_1_1 release.md v1.0'],
        'the approved call ran once, with the approved arguments; the denied one never',
      );
      assert.equal(readFileSync(path.join(h.workspace, 'release.md'), 'utf8'), 'v1.0');
      assert.equal(existsSync(path.join(h.workspace, 'secrets.md')), false);
      assert.equal(requestMessages(h.model, 2).at(-1)!.content, 'Denied by bob: not public. The call did not run.');
      assert.deepEqual(await pendingFor(handle.workflowId), []);
      const late = await dagent(['approve', handle.workflowId, 'call_2_1', '--by', 'carol']);
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
          ['call_1_1', 'ok', true, 'alice', 'release day'],
          ['call_2_1', 'denied', false, 'bob', 'not public'],
        ],
      );
      const timeline = (await dagent(['audit', handle.workflowId])).stdout;
      assert.match(timeline, /publish \{"path":"release.md","text":"v1.0"\} {2}approved by alice \(release day\)/);
      assert.match(
        timeline,
        /✗ publish \{"path":"secrets.md","text":"oops"\} {2}denied by bob \(not public\): not run/,
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
});
