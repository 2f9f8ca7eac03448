import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { fileResource } from '../../src/tools/workspace.js';
import { lockWorkflowId } from '../../src/workflow-safe/lock-types.js';
import { lockStateQuery, progressQuery } from '../../src/workflow-safe/messages.js';
import { dagent } from '../helpers/cli.js';
import { until } from '../helpers/wait.js';
import { startHarness } from '../helpers/harness.js';
import { lockTools } from '../helpers/lock-tools.js';

describe('job control', () => {
  it('cancel during a long tool call: the tool stops, the lock is released, the status says cancelled', async () => {
    const aborted: string[] = [];
    const h = await startHarness({
      tools: [...builtinTools, ...lockTools([], 100, aborted)],
      scenario: {
        name: 'long',
        steps: [
          { reply: { toolCalls: [{ name: 'hold', arguments: { path: 'busy.txt', ms: 120_000 } }] } },
          { reply: { content: 'never' } },
        ],
      },
    });
    try {
      const handle = await h.start();
      await until('the tool to start', async () =>
        (await handle.query(progressQuery, 0)).events.some((e) => e.kind === 'tool_start'),
      );
      const lock = h.client.workflow.getHandle(lockWorkflowId(await fileResource(h.workspace, 'busy.txt')));
      assert.equal((await lock.query(lockStateQuery)).holder?.workflowId, handle.workflowId);

      const t0 = Date.now();
      const r = await dagent(['cancel', handle.workflowId, '--json']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { jobId: handle.workflowId, status: 'cancelled' });
      assert.deepEqual(aborted, ['s1c1'], 'the running tool saw the cancellation');
      assert.ok(Date.now() - t0 < 60_000);
      const state = await until('the lock to be released', async () => {
        const s = await lock.query(lockStateQuery);
        return s.holder === null ? s : undefined;
      });
      assert.ok(state.events!.some((e) => e.kind === 'released' && e.workflowId === handle.workflowId));
      const d = await handle.describe();
      assert.equal(d.status.name, 'CANCELLED');
      assert.equal(d.typedSearchAttributes.get({ name: 'DagentStatus', type: 'KEYWORD' }), 'cancelled');
      const audit = (await dagent(['audit', handle.workflowId, '--json'])).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(audit.at(-1).status, 'cancelled');
      assert.equal(audit.find((x: { type: string }) => x.type === 'tool_call').status, 'cancelled');
      const again = await dagent(['cancel', handle.workflowId]);
      assert.equal(again.code, 2);
      assert.match(again.stderr, /is not running \(status cancelled\)/);
    } finally {
      await h.close();
    }
  });

  it('watch follows a job started elsewhere; list shows it', async () => {
    const h = await startHarness({
      scenario: {
        name: 'w',
        steps: [
          { delayMs: 500, reply: { toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] } },
          { reply: { content: 'forty-two' } },
        ],
      },
    });
    try {
      const handle = await h.start();
      const w = await dagent(['watch', handle.workflowId]);
      assert.equal(w.code, 0, w.stderr);
      assert.match(w.stdout, /→ calculator \{"expression":"6\*7"\}\n {2}← calculator \d+ ms: 42\n/);
      assert.match(w.stdout, /done after 2 steps\n\nforty-two/);
      const l = await dagent(['list', '--json', '--limit', '200']);
      assert.ok(
        JSON.parse(l.stdout).some(
          (j: { jobId: string; status: string }) => j.jobId === handle.workflowId && j.status === 'completed',
        ),
      );
    } finally {
      await h.close();
    }
  });
});

describe('budgets', () => {
  const summaryAware =
    (call: (step: number) => { name: string; arguments: Record<string, unknown> }) =>
    ({ body, step }: { body: { messages: Array<{ role: string; content?: unknown }> }; step: number }) => {
      const last = body.messages.at(-1)!;
      if (last.role === 'user' && String(last.content).startsWith('Stop now:'))
        return { reply: { content: `summary: ${step} steps done` } };
      return { reply: { toolCalls: [call(step)] } };
    };

  it('a token budget stops the job, with one last summary call that offers no tools', async () => {
    const h = await startHarness({
      handler: summaryAware((s) => ({ name: 'calculator', arguments: { expression: `${s}+1` } })),
    });
    try {
      const r = await (await h.start({ maxTokens: 1200, onBudget: 'stop' })).result();
      assert.equal(r.status, 'token_budget');
      assert.match(r.reason!, /^used \d+ of 1200 tokens(, and the next call needs about \d+)?$/);
      assert.match(r.answer!, /^summary: \d+ steps done$/);
      const last = h.model.requests.at(-1)!.body;
      assert.equal(last.tools, undefined);
      assert.match(
        String(last.messages.at(-1)!.content),
        /^Stop now: used \d+ of 1200 tokens[^.]*\. Do not call any tool/,
      );
    } finally {
      await h.close();
    }
  });

  it('a deadline stops the job with status time_budget', async () => {
    const h = await startHarness({
      tools: [...builtinTools, ...lockTools([], 400)],
      handler: summaryAware((s) => ({ name: 'slow_write', arguments: { path: `f${s}.txt`, content: 'x' } })),
    });
    try {
      const r = await (await h.start({ deadlineMs: 1500, onBudget: 'stop' })).result();
      assert.equal(r.status, 'time_budget');
      assert.match(r.reason!, /s of a 2 s deadline$/);
      assert.ok(r.steps >= 2 && r.steps < 10, `steps ${r.steps}`);
      assert.match(r.answer!, /^summary:/);
    } finally {
      await h.close();
    }
  });

  it('the same call in 3 consecutive steps stops the job with status no_progress', async () => {
    const h = await startHarness({ handler: summaryAware(() => ({ name: 'list_files', arguments: { path: '.' } })) });
    try {
      const r = await (await h.start()).result();
      assert.deepEqual([r.status, r.steps, r.answer], ['no_progress', 3, null]);
      assert.equal(r.reason, 'the same call repeated in 3 consecutive steps: list_files {"path":"."}');
    } finally {
      await h.close();
    }
  });
});
