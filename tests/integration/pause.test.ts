import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readAudit } from '../../src/client/audit.js';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { SA_STATUS } from '../../src/workflow-safe/search-attributes.js';
import { pausedQuery, resumeUpdate } from '../../src/workflow-safe/messages.js';
import { dagent } from '../helpers/cli.js';
import { countedWrite } from '../helpers/counted-tool.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { until } from '../helpers/wait.js';

const FAST_RETRY = { maximumAttempts: 10, initialIntervalMs: 10, maximumIntervalMs: 20 };
const env = () => ({ TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS! });

const pausedOf = async (h: Harness, jobId: string) =>
  until(`job ${jobId} to pause`, async () => {
    const d = await h.client.workflow.getHandle(jobId).describe();
    if (d.searchAttributes?.[SA_STATUS.name]?.[0] !== 'paused') return null;
    return h.client.workflow.getHandle(jobId).query(pausedQuery);
  });

describe('pause instead of dying', () => {
  it('500 eleven times in a row: the job pauses with the reason, `dagent resume` completes it, no call runs twice', async () => {
    const runs: string[] = [];
    const h = await startHarness({
      tools: [...builtinTools, countedWrite(runs)],
      scenario: {
        name: 'outage',
        steps: [
          { reply: { toolCalls: [{ name: 'append_once', arguments: { line: 'one' } }] } },
          {
            faults: Array.from({ length: 11 }, () => ({ status: 500 })),
            reply: { content: 'finished after the outage' },
          },
        ],
      },
    });
    try {
      const handle = await h.start({ modelRetry: FAST_RETRY });
      const p = (await pausedOf(h, handle.workflowId))!;
      assert.equal(p.kind, 'outage');
      assert.equal(p.step, 2);
      assert.match(p.reason, /model call at step 2 failed: Model call failed with HTTP 500/);
      const status = await dagent(['status', handle.workflowId], env());
      assert.match(status.stdout, new RegExp(`${handle.workflowId}: paused\\n`));
      assert.match(status.stdout, /paused at step 2 since .* \(outage\): model call at step 2 failed/);
      assert.match(status.stdout, /`dagent resume` tries again/);
      const jobs = await dagent(['jobs', '--status', 'paused', '--json'], env());
      assert.ok(JSON.parse(jobs.stdout).some((j: { jobId: string }) => j.jobId === handle.workflowId));

      const resumed = await dagent(['resume', handle.workflowId, '--by', 'ops'], env());
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stdout, /Resumed .* at step 2 \(it was paused: outage/);
      const r = await handle.result();
      assert.deepEqual([r.status, r.answer, r.steps], ['completed', 'finished after the outage', 2]);
      assert.deepEqual(runs, [`${handle.workflowId} s1c1 one`], 'the completed call did not run again');
      // The 11th 500 came after the resume and was retried; 12 requests for step 2 in all.
      assert.equal(h.model.requests.filter((q) => q.step === 1).length, 12);
      const again = await dagent(['resume', handle.workflowId], env());
      assert.equal(again.code, 2);
      assert.match(again.stderr, /is not paused/);
      // The audit: the failed call with the provider's error, then who resumed.
      const audit = await readAudit(h.client, handle.workflowId);
      const failed = audit.find((x) => x.type === 'model_call' && x.status === 'failed');
      assert.match(String(failed && 'error' in failed ? failed.error : ''), /HTTP 500/);
      assert.ok(audit.some((x) => x.type === 'resume' && x.by === 'ops'));
    } finally {
      await h.close();
    }
  });

  it('an outage with autoResume: the job tries the provider again on its schedule and completes with nobody resuming it', async () => {
    const h = await startHarness({
      scenario: {
        name: 'auto-resume',
        steps: [{ faults: Array.from({ length: 3 }, () => ({ status: 503 })), reply: { content: 'back up' } }],
      },
    });
    try {
      const handle = await h.start({
        modelRetry: { maximumAttempts: 1 },
        autoResume: { everyMs: 300, forMs: 60_000 },
      });
      const r = await handle.result();
      assert.deepEqual([r.status, r.answer], ['completed', 'back up']);
      assert.equal(h.model.requests.length, 4, 'three failed tries, one a pause each, then the reply');
    } finally {
      await h.close();
    }
  });

  for (const [code, status, kind] of [
    ['insufficient_quota', 429, 'quota'],
    ['context_length_exceeded', 400, 'context_overflow'],
  ] as const) {
    it(`${code} pauses at once; resume with another model completes`, async () => {
      const h = await startHarness({
        scenario: {
          name: code,
          steps: [
            { faults: [{ status, code, message: `scripted ${code}` }], reply: { content: 'done on the other model' } },
          ],
        },
      });
      try {
        const handle = await h.start({ modelRetry: FAST_RETRY });
        const p = (await pausedOf(h, handle.workflowId))!;
        assert.equal(p.kind, kind);
        assert.equal(h.model.requests.length, 1, 'not retried: no retry fixes it');
        await handle.executeUpdate(resumeUpdate, { args: [{ by: 'ana', model: 'bigger-model' }] });
        const r = await handle.result();
        assert.deepEqual([r.status, r.answer], ['completed', 'done on the other model']);
        assert.equal(h.model.requests.at(-1)!.body.model, 'bigger-model');
      } finally {
        await h.close();
      }
    });
  }

  it('a token budget pauses before a call would overrun it; `resume --max-tokens` continues', async () => {
    const h = await startHarness({
      handler: ({ step }) =>
        step < 4
          ? { reply: { toolCalls: [{ name: 'calculator', arguments: { expression: `${step}+1` } }] } }
          : { reply: { content: 'all four sums done' } },
    });
    try {
      const handle = await h.start({ maxTokens: 400 });
      const p = (await pausedOf(h, handle.workflowId))!;
      assert.equal(p.kind, 'token_budget');
      assert.match(p.reason, /^used \d+ of 400 tokens/);
      const before = h.model.requests.length;
      const resumed = await dagent(['resume', handle.workflowId, '--max-tokens', '100000'], env());
      assert.equal(resumed.code, 0, resumed.stderr);
      const r = await handle.result();
      assert.deepEqual([r.status, r.answer], ['completed', 'all four sums done']);
      assert.ok(h.model.requests.length > before);
      const audit = await readAudit(h.client, handle.workflowId);
      assert.ok(audit.some((x) => x.type === 'job_end' && x.status === 'completed'));
    } finally {
      await h.close();
    }
  });
});

describe('money budgets', () => {
  it('a cost budget (from the worker’s price table) pauses before a call would overrun it; resume --max-cost continues', async () => {
    const h = await startHarness({
      prices: { scripted: { input: 1000, output: 1000 } }, // $0.001 a token: a step costs about $0.14
      handler: ({ step }) =>
        step < 3
          ? { reply: { toolCalls: [{ name: 'calculator', arguments: { expression: `${step}*2` } }] } }
          : { reply: { content: 'three products done' } },
    });
    try {
      const handle = await h.start({ maxCostUsd: 0.3 });
      const p = (await pausedOf(h, handle.workflowId))!;
      assert.equal(p.kind, 'cost_budget');
      assert.match(p.reason, /^spent \$0\.\d{4} of \$0\.3000/);
      await handle.executeUpdate(resumeUpdate, { args: [{ by: 'ana', maxCostUsd: 5 }] });
      const r = await handle.result();
      assert.equal(r.answer, 'three products done');
      const calls = (await readAudit(h.client, handle.workflowId)).filter((x) => x.type === 'model_call');
      const spent = calls.reduce((sum, c) => sum + ('costUsd' in c && c.costUsd ? c.costUsd : 0), 0);
      assert.ok(
        calls.every((c) => 'costUsd' in c && typeof c.costUsd === 'number'),
        'every call priced',
      );
      assert.ok(Math.abs(spent - r.usage.totalTokens / 1000) < 1e-9, `$${spent} for ${r.usage.totalTokens} tokens`);
    } finally {
      await h.close();
    }
  });
});

describe('a quota breaker per provider', () => {
  it('after one job hits the quota, the next job on the worker pauses without sending a request; resume sends it', async () => {
    const h = await startHarness({
      handler: ({ body }) => {
        const task = String(body.messages.find((m) => m.role === 'user')?.content);
        return task === 'first'
          ? {
              faults: [{ status: 429, code: 'insufficient_quota', message: 'no credit left' }],
              reply: { content: 'first done' },
            }
          : { reply: { content: 'second done' } };
      },
    });
    try {
      const first = await h.start({ task: 'first' });
      assert.equal((await pausedOf(h, first.workflowId))!.kind, 'quota');
      const second = await h.start({ task: 'second' });
      const p = (await pausedOf(h, second.workflowId))!;
      assert.equal(p.kind, 'quota');
      assert.match(p.reason, /not sent: .* reported its quota used up \d+ s ago/);
      const sentFor = (task: string) =>
        h.model.requests.filter((q) => q.body.messages.some((m) => m.role === 'user' && m.content === task)).length;
      assert.equal(sentFor('second'), 0, 'the second job spent no request on a quota known to be gone');
      await second.executeUpdate(resumeUpdate, { args: [{ by: 'ops' }] });
      assert.equal((await second.result()).answer, 'second done');
      // A call that succeeded closed the breaker: the first job's resume needs no bypass to go through.
      await first.executeUpdate(resumeUpdate, { args: [{ by: 'ops' }] });
      assert.equal((await first.result()).answer, 'first done');
      assert.equal(sentFor('second'), 1);
    } finally {
      await h.close();
    }
  });
});

describe('a context overflow, resumed with a compaction', () => {
  it('older messages become one summary (marked as such); the model gets the system prompt, task, summary, last reply and new results', async () => {
    const h = await startHarness({
      handler: ({ body, step }) => {
        const compacted = body.messages.some((m) => String(m.content ?? '').startsWith('[Earlier work, compacted'));
        if (compacted) return { reply: { content: 'done after compaction' } };
        if (step < 3)
          return { reply: { toolCalls: [{ name: 'calculator', arguments: { expression: `${step}*10` } }] } };
        return {
          faults: [{ status: 400, code: 'context_length_exceeded', message: 'too long' }],
          reply: { content: 'not reached' },
        };
      },
    });
    try {
      const handle = await h.start({ modelRetry: FAST_RETRY });
      const p = (await pausedOf(h, handle.workflowId))!;
      assert.equal(p.kind, 'context_overflow');
      const resumed = await dagent(['resume', handle.workflowId, '--compact', '--by', 'ana'], env());
      assert.equal(resumed.code, 0, resumed.stderr);
      const r = await handle.result();
      assert.equal(r.answer, 'done after compaction');
      const sent = h.model.requests.at(-1)!.body.messages;
      assert.deepEqual(
        sent.map((m) => m.role),
        ['system', 'user', 'user', 'assistant', 'tool'],
      );
      const summary = String(sent[2]!.content);
      assert.match(summary, /^\[Earlier work, compacted to fit the model’s context: 4 messages\]/);
      assert.match(summary, /You called: calculator\(\{"expression":"0\*10"\}\)\nResult: 0/);
      assert.match(String(sent[4]!.content), /^20$/);
      const audit = await readAudit(h.client, handle.workflowId);
      assert.ok(audit.some((x) => x.type === 'resume' && x.compact === true));
    } finally {
      await h.close();
    }
  });
});
