import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ModelCallRecord, ToolCallRecord } from '../../src/audit/schema.js';
import { readAudit } from '../../src/client/audit.js';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { dagent } from '../helpers/cli.js';
import { countedWrite } from '../helpers/counted-tool.js';
import { startHarness } from '../helpers/harness.js';

describe('forks of recorded jobs', () => {
  it('a fork at step 2 takes steps 1–2 from the recording (the non-idempotent write does not run again) and continues live', async () => {
    const runs: string[] = [];
    const appendOnce = countedWrite(runs);
    const h = await startHarness({
      tools: [...builtinTools, appendOnce],
      handler: ({ step, body }) =>
        step === 0
          ? { reply: { toolCalls: [{ name: 'append_once', arguments: { line: 'once' } }] } }
          : step === 1
            ? { reply: { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] } }
            : { reply: { content: `done by ${body.model}` } },
    });
    try {
      writeFileSync(path.join(h.workspace, 'notes.txt'), 'recorded notes');
      const original = await h.start();
      assert.equal((await original.result()).answer, 'done by scripted');
      const cli = {
        TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
        DAGENT_TASK_QUEUE: h.taskQueue,
        DAGENT_EXTERNAL_WORKERS: '1',
      };

      const refused = await dagent(['fork', original.workflowId, '--at-step', '3'], cli);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /has no recorded step 4 to continue from \(its last step is 3\)/);

      const started = await dagent(
        [
          'fork',
          original.workflowId,
          '--at-step',
          '2',
          '--model',
          'other-model',
          '--id',
          `${original.workflowId}-fork`,
          '--detach',
          '--json',
        ],
        cli,
      );
      assert.equal(started.code, 0, started.stderr);
      const fork = h.client.workflow.getHandle(`${original.workflowId}-fork`);
      const r = await fork.result();
      assert.deepEqual([r.status, r.answer, r.steps], ['completed', 'done by other-model', 3]);
      assert.deepEqual(runs, [`${original.workflowId} s1c1 once`], 'the recorded write ran once, in the original');

      // The fork's first live request is the recorded conversation, on the new model.
      const live = h.model.requests.filter((q) => q.status === 200 && q.body.model === 'other-model');
      assert.equal(live.length, 1);
      const msgs = live[0]!.body.messages;
      assert.deepEqual(
        msgs.map((m) => m.role),
        ['system', 'user', 'assistant', 'tool', 'assistant', 'tool'],
      );
      assert.equal(msgs[3]!.content, 'appended once');
      assert.equal(msgs[5]!.content, 'recorded notes');

      // The audit shows steps 1–2 as taken from the recording, step 3 as the fork's own.
      const audit = await readAudit(h.client, fork.workflowId);
      const models = audit.filter((x): x is ModelCallRecord => x.type === 'model_call');
      assert.deepEqual(
        models.map((m) => [m.step, m.fromRecording ?? null]),
        [
          [1, original.workflowId],
          [2, original.workflowId],
          [3, null],
        ],
      );
      const tools = audit.filter((x): x is ToolCallRecord => x.type === 'tool_call');
      assert.deepEqual(
        tools.map((t) => [t.name, t.fromRecording]),
        [
          ['append_once', original.workflowId],
          ['read_file', original.workflowId],
        ],
      );
      const timeline = await dagent(['audit', fork.workflowId], cli);
      assert.match(timeline.stdout, /step 1 .*\(recorded in .*; not run again\)/);

      const diff = await dagent(['diff', original.workflowId, fork.workflowId], cli);
      assert.equal(diff.code, 0, diff.stderr);
      assert.match(diff.stdout, /^= step 1: append_once \{"line":"once"\}/m);
      assert.match(diff.stdout, /^= step 2: read_file/m);
      assert.match(
        diff.stdout,
        /^≠ step 3\n {4}A: answer done by scripted\n {4}A: tokens \d+\n {4}B: answer done by other-model/m,
      );
      assert.match(diff.stdout, /answers differ/);

      // Each job records the agent that ran it; the fork's own calls ran on another model.
      const agentOf = (recs: typeof audit) => [
        ...new Set(
          recs.filter((x): x is ModelCallRecord => x.type === 'model_call' && !x.fromRecording).map((m) => m.agent),
        ),
      ];
      const [agentA] = agentOf(await readAudit(h.client, original.workflowId));
      const [agentB, ...more] = agentOf(audit);
      assert.match(agentA!, /^[0-9a-f]{12}$/);
      assert.ok(agentB && agentB !== agentA && more.length === 0, `${agentA} vs ${agentB}`);
      assert.match(timeline.stdout, new RegExp(`agent ${agentB}`));
      const byAgent = async (hash: string) =>
        (JSON.parse((await dagent(['jobs', '--agent', hash, '--json'], cli)).stdout) as Array<{ jobId: string }>).map(
          (j) => j.jobId,
        );
      // Other tests' jobs may share an agent (the same tools, prompt and model): look at these two.
      const ours = (ids: string[]) => ids.filter((id) => id === original.workflowId || id === fork.workflowId);
      assert.deepEqual(ours(await byAgent(agentA!)), [original.workflowId]);
      assert.deepEqual(ours(await byAgent(agentB)), [fork.workflowId]);

      // An eval: the same change over recorded jobs, one row each.
      const ev = await dagent(['eval', original.workflowId, '--at-step', '2', '--model', 'third-model'], cli);
      assert.equal(ev.code, 0, ev.stderr);
      assert.match(ev.stdout, /^forked at step 2, model third-model$/m);
      assert.match(
        ev.stdout,
        new RegExp(
          `^${original.workflowId}  eval-\\S+  status completed → completed  steps 3 → 3  tokens \\d+ → \\d+  answer changed$`,
          'm',
        ),
      );
      assert.match(ev.stdout, /^0 of 1 answers the same$/m);
      assert.deepEqual(runs, [`${original.workflowId} s1c1 once`], 'the eval ran no recorded call again');
    } finally {
      await h.close();
    }
  });
});
