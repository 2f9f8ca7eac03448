import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import proto from '@temporalio/proto';
import { fetchJobRuns, readAudit } from '../../src/client/audit.js';
import { parseScenario } from '../../src/scripted-model/scenario.js';
import { decideUpdate, pendingApprovalsQuery } from '../../src/workflow-safe/messages.js';
import type { PendingApproval } from '../../src/workflow-safe/types.js';
import { dagent } from '../helpers/cli.js';
import { startHarness, tempDir } from '../helpers/harness.js';

const STEPS = 300;
/** Bytes of a run's history as the server stores it (protobuf). */
const historyBytes = (h: proto.temporal.api.history.v1.IHistory) =>
  proto.temporal.api.history.v1.History.encode(h).finish().length;
const DATA = `${'log line with some text in it, '.repeat(90)}\n`; // 2.8 KB

describe('a long job keeps a small history: the conversation lives in the content store', () => {
  it(`${STEPS} steps: the whole history stays under 3 MB, the audit lists every step, and its scenario replays offline`, async () => {
    const h = await startHarness({
      handler: ({ step }) =>
        step < STEPS
          ? { reply: { toolCalls: [{ name: 'read_file', arguments: { path: 'data.txt' } }] } }
          : { reply: { content: `read it ${STEPS} times` } },
    });
    writeFileSync(path.join(h.workspace, 'data.txt'), DATA);
    try {
      // Continue-as-new every 100 steps as well: the state it carries is a reference, not the conversation.
      const handle = await h.start({ maxSteps: STEPS + 1, continueAsNewAfterSteps: 100, noProgressRepeats: STEPS + 5 });
      const r = await handle.result();
      assert.deepEqual([r.status, r.steps], ['completed', STEPS + 1]);
      const last = h.model.requests.at(-1)!.body.messages;
      assert.equal(last.filter((m) => m.role === 'tool').length, STEPS, 'the last model call saw every result');
      assert.equal(String(last.filter((m) => m.role === 'tool').at(0)!.content), DATA);

      const runs = await fetchJobRuns(h.client, handle.workflowId);
      assert.equal(runs.length, 4);
      const bytes = runs.map(historyBytes).reduce((a, b) => a + b, 0);
      assert.ok(bytes < 3_000_000, `the whole history is ${bytes} bytes`);
      console.log(
        `long job: ${STEPS + 1} steps, ${runs.length} runs, ${bytes} history bytes (${Math.round(bytes / (STEPS + 1))} per step)`,
      );

      const records = await readAudit(h.client, handle.workflowId);
      const models = records.filter((x) => x.type === 'model_call');
      const tools = records.filter((x) => x.type === 'tool_call');
      assert.equal(models.length, STEPS + 1);
      assert.equal(tools.length, STEPS);
      assert.ok(
        tools.every((t) => t.type === 'tool_call' && t.result?.output === DATA),
        'every tool result, whole',
      );

      const file = path.join(tempDir(), 'long.json');
      const exported = await dagent(['export', handle.workflowId, '--scenario', file]);
      assert.equal(exported.code, 0, exported.stderr);
      const scenario = parseScenario(JSON.parse(readFileSync(file, 'utf8')));
      assert.equal(scenario.steps.length, STEPS + 1);
      const again = await startHarness({ scenario });
      writeFileSync(path.join(again.workspace, 'data.txt'), DATA);
      try {
        const replayed = await (await again.start({ maxSteps: STEPS + 1, noProgressRepeats: STEPS + 5 })).result();
        assert.deepEqual(
          [replayed.status, replayed.steps, replayed.answer],
          ['completed', STEPS + 1, `read it ${STEPS} times`],
        );
      } finally {
        await again.close();
      }
    } finally {
      await h.close();
    }
  });

  it('a blob deleted from the store: the next model call and the audit fail, naming its hash', async () => {
    const store = tempDir('dagent-store-');
    const h = await startHarness({
      contentDir: store,
      handler: ({ step }) =>
        step === 0
          ? { reply: { toolCalls: [{ name: 'read_file', arguments: { path: 'data.txt' } }] } }
          : step === 1
            ? { reply: { toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'x' } }] } }
            : { reply: { content: 'never' } },
    });
    writeFileSync(path.join(h.workspace, 'data.txt'), DATA);
    try {
      const handle = await h.start({ requireApproval: ['write_file'] });
      // While the write waits for approval, the store is lost (as a disk would be) and the worker restarts (a cold cache).
      let pending: Awaited<ReturnType<typeof handle.query<PendingApproval[]>>> = [];
      for (let i = 0; i < 200 && !pending.length; i++) {
        pending = await handle.query(pendingApprovalsQuery).catch(() => []);
        if (!pending.length) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(pending.length, 1);
      for (const d of readdirSync(store)) rmSync(path.join(store, d), { recursive: true, force: true });
      await h.restartWorker();
      const [p] = pending;
      await handle.executeUpdate(decideUpdate, {
        args: [{ callId: p!.callId, approve: true, by: 'test', argsHash: p!.argsHash }],
      });
      await assert.rejects(handle.result(), (err: Error & { cause?: Error & { type?: string } }) => {
        assert.equal(err.cause?.type, 'ContentMissing');
        assert.match(err.cause!.message, /Model call failed at step 3: Content sha256:[0-9a-f]{64} is missing from/);
        return true;
      });
      assert.equal(h.model.requests.length, 2, 'no model request was sent without the conversation');
      const audit = await dagent(['audit', handle.workflowId], { DAGENT_CONTENT_DIR: store });
      assert.equal(audit.code, 1);
      assert.match(audit.stderr, /Content sha256:[0-9a-f]{64} is missing from/);
    } finally {
      await h.close();
    }
  });
});
