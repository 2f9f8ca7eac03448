import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { fileResource } from '../../src/tools/workspace.js';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { lockWorkflowId } from '../../src/workflow-safe/lock-types.js';
import { lockStateQuery } from '../../src/workflow-safe/messages.js';
import { startHarness } from '../helpers/harness.js';
import { lockTools, type WriteRecord } from '../helpers/lock-tools.js';
import { until } from '../helpers/wait.js';

describe('tracing (OpenTelemetry)', () => {
  it("a job's trace holds its run, its model calls, its tool calls and its lock wait, as one tree", async () => {
    const exporter = new InMemorySpanExporter();
    const writes: WriteRecord[] = [];
    const h = await startHarness({
      tracing: { spanProcessor: new SimpleSpanProcessor(exporter), serviceName: 'dagent-test' },
      tools: [...builtinTools, ...lockTools(writes, 0)],
      handler: ({ body, step }) => {
        const task = String(body.messages.find((m) => m.role === 'user')!.content);
        const call =
          task === 'holder'
            ? { name: 'hold', arguments: { path: 'shared.txt', ms: 3_000 } }
            : { name: 'slow_write', arguments: { path: 'shared.txt', content: 'x' } };
        return step === 0 ? { reply: { toolCalls: [call] } } : { reply: { content: 'done' } };
      },
    });
    try {
      const key = await fileResource(h.workspace, 'shared.txt');
      const holder = await h.start({ task: 'holder' });
      await until(
        'the holder to hold the key',
        async () =>
          (await h.client.workflow.getHandle(lockWorkflowId(key)).query(lockStateQuery)).holder?.workflowId ===
          holder.workflowId,
      );
      const writer = await h.start({ task: 'writer' });
      await Promise.all([holder.result(), writer.result()]);
      const spans = await until('the writer’s spans', async () => {
        const all = exporter.getFinishedSpans();
        const mine = all.find((s) => s.attributes['dagent.job_id'] === writer.workflowId);
        const trace = mine && all.filter((s) => s.spanContext().traceId === mine.spanContext().traceId);
        return trace?.some((s) => s.name.startsWith('RunWorkflow')) ? trace : null;
      });
      const names = spans.map((s) => s.name);
      const one = (pred: (s: ReadableSpan) => boolean, what: string) => {
        const found = spans.filter(pred);
        assert.ok(found.length > 0, `no ${what} among ${names.join(', ')}`);
        return found;
      };
      const model = one((s) => s.name === 'RunActivity:callModel', 'model call span');
      assert.equal(model.length, 2);
      assert.deepEqual(model.map((s) => s.attributes['dagent.step']).sort(), [1, 2]);
      const [tool] = one(
        (s) => s.name === 'RunActivity:runTool' && s.attributes['dagent.tool'] === 'slow_write',
        'tool span',
      );
      const [wait] = one((s) => s.name === 'lock wait', 'lock wait span');
      assert.equal(wait!.attributes['dagent.lock_key'], key);
      assert.equal(wait!.parentSpanId, tool!.spanContext().spanId, 'the lock wait is a child of the tool call');
      const waitedMs = (wait!.duration[0] * 1e9 + wait!.duration[1]) / 1e6;
      assert.ok(waitedMs > 100, `the writer waited for the holder's 3 s hold, but the span lasts ${waitedMs} ms`);
      one((s) => s.name === 'RunWorkflow:agentTurn', 'workflow run span');
      assert.equal(spans[0]!.resource.attributes['service.name'], 'dagent-test');
    } finally {
      await h.close();
    }
  });
});
