import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SA_STATUS, SA_TOOLS } from '../../src/workflow-safe/search-attributes.js';
import { dagent } from '../helpers/cli.js';
import { startHarness } from '../helpers/harness.js';

describe('a long turn', () => {
  it('continues-as-new, carrying the conversation; the audit joins its runs into one job', async () => {
    const h = await startHarness({
      handler: ({ step }) =>
        step < 4
          ? { reply: { toolCalls: [{ name: 'calculator', arguments: { expression: `${step + 1} * 10` } }] } }
          : { reply: { content: 'added it all up' } },
    });
    try {
      const handle = await h.start({ continueAsNewAfterSteps: 2 });
      const r = await handle.result();
      assert.deepEqual([r.status, r.answer, r.steps], ['completed', 'added it all up', 5]);

      const last = h.model.requests.at(-1)!.body.messages;
      assert.deepEqual(
        last.filter((m) => m.role === 'tool').map((m) => m.content),
        ['10', '20', '30', '40'],
        'the last run still sees every earlier result',
      );

      let runs = 1;
      let started = (await handle.fetchHistory()).events![0]!.workflowExecutionStartedEventAttributes!;
      while (started.continuedExecutionRunId) {
        runs++;
        started = (await h.client.workflow.getHandle(handle.workflowId, started.continuedExecutionRunId).fetchHistory())
          .events![0]!.workflowExecutionStartedEventAttributes!;
      }
      assert.equal(runs, 3, 'steps 1–2, 3–4 and 5 ran in three runs');

      const sa = (await handle.describe()).typedSearchAttributes;
      assert.deepEqual([sa.get(SA_TOOLS), sa.get(SA_STATUS)], [['calculator'], 'completed']);

      const audit = (await dagent(['audit', handle.workflowId, '--json'])).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.deepEqual(
        audit.map((x: { type: string; step?: number }) =>
          x.type === 'model_call' || x.type === 'tool_call' ? `${x.type}:${x.step}` : x.type,
        ),
        [
          'job_start',
          'model_call:1',
          'tool_call:1',
          'model_call:2',
          'tool_call:2',
          'model_call:3',
          'tool_call:3',
          'model_call:4',
          'tool_call:4',
          'model_call:5',
          'job_end',
        ],
      );
      assert.equal(audit.at(-1).status, 'completed');
    } finally {
      await h.close();
    }
  });
});
