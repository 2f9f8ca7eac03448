import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { requestMessages, startHarness, type Harness } from '../helpers/harness.js';
import { probeTools, type Interval } from '../helpers/probe-tools.js';

describe('a three-step job: parallel reads, a write, a final answer', () => {
  const intervals: Interval[] = [];
  let h: Harness;
  let result: Awaited<ReturnType<Awaited<ReturnType<Harness['start']>>['result']>>;

  before(async () => {
    h = await startHarness({
      tools: [...builtinTools, ...probeTools(intervals)],
      scenario: {
        name: 'three-steps',
        steps: [
          {
            reply: {
              content: 'Reading.',
              toolCalls: [
                { name: 'read_file', arguments: { path: 'a.txt' } },
                { name: 'read_file', arguments: { path: 'b.txt' } },
                { name: 'slow_read', arguments: { key: 'x' } },
                { name: 'slow_read', arguments: { key: 'y' } },
              ],
            },
          },
          {
            reply: {
              content: null,
              toolCalls: [{ name: 'write_file', arguments: { path: 'out/sum.txt', content: 'alpha+beta' } }],
            },
          },
          { reply: { content: 'Wrote out/sum.txt.' } },
        ],
      },
    });
    writeFileSync(path.join(h.workspace, 'a.txt'), 'alpha');
    writeFileSync(path.join(h.workspace, 'b.txt'), 'beta');
    result = await (await h.start({ task: 'combine a and b' })).result();
  });
  after(() => h.close());

  it('completes with the final answer and the step count', () => {
    assert.equal(result.status, 'completed');
    assert.equal(result.answer, 'Wrote out/sum.txt.');
    assert.equal(result.steps, 3);
    assert.ok(result.usage.totalTokens > 0);
  });

  it('writes the file in the workspace', () => {
    assert.equal(readFileSync(path.join(h.workspace, 'out/sum.txt'), 'utf8'), 'alpha+beta');
  });

  it('runs the reads of one step at the same time', () => {
    assert.equal(intervals.length, 2);
    assert.ok(
      intervals[0]!.met && intervals[1]!.met,
      `the two reads did not run together: ${JSON.stringify(intervals)}`,
    );
  });

  it('sends the model the whole history, every tool result paired with its tool_call_id in order', () => {
    assert.equal(h.model.requests.length, 3);
    const second = requestMessages(h.model, 1);
    assert.deepEqual(
      second.map((m) => m.role),
      ['system', 'user', 'assistant', 'tool', 'tool', 'tool', 'tool'],
    );
    assert.equal(second[1]!.content, 'combine a and b');
    const asked = second[2]!.tool_calls!.map((c) => c.id);
    assert.deepEqual(asked, ['call_1_1', 'call_1_2', 'call_1_3', 'call_1_4']);
    assert.deepEqual(
      second.slice(3).map((m) => m.tool_call_id),
      asked,
    );
    assert.deepEqual(
      second.slice(3).map((m) => m.content),
      ['alpha', 'beta', 'value of x', 'value of y'],
    );

    const third = requestMessages(h.model, 2);
    assert.deepEqual(third.slice(0, second.length), second, 'step 3 must repeat step 2 history unchanged');
    assert.deepEqual(
      third.slice(second.length).map((m) => m.role),
      ['assistant', 'tool'],
    );
    assert.equal(third[second.length]!.tool_calls![0]!.function.name, 'write_file');
    assert.equal(third[second.length + 1]!.tool_call_id, third[second.length]!.tool_calls![0]!.id);
    assert.match(String(third[second.length + 1]!.content), /^Wrote 10 bytes to out\/sum.txt/);
  });

  it('offers the model every tool with its JSON schema', () => {
    const offered = h.model.requests[0]!.body.tools! as Array<{
      type: string;
      function: { name: string; parameters: { type: string; properties: object } };
    }>;
    assert.deepEqual(
      offered.map((t) => t.function.name),
      [...builtinTools.map((t) => t.name), 'slow_read'],
    );
    for (const t of offered) {
      assert.equal(t.type, 'function');
      assert.equal(t.function.parameters.type, 'object', `${t.function.name} has an object schema`);
      assert.equal(typeof t.function.parameters.properties, 'object');
    }
  });
});

describe('a turn started with a wrong input', () => {
  it('fails at once, naming every wrong field, and never calls the model', async () => {
    const h = await startHarness({ scenario: { name: 'unused', steps: [{ reply: { content: 'never' } }] } });
    try {
      const handle = await h.client.workflow.start('agentTurn', {
        taskQueue: h.taskQueue,
        workflowId: `bad-input-${Date.now()}`,
        args: [{ task: 'x', workspace: h.workspace, maxSteps: -1, toolFormat: 'yaml' }],
      });
      await assert.rejects(handle.result(), (err: Error & { cause?: Error & { type?: string } }) => {
        assert.equal(err.cause?.type, 'InvalidTurnInput');
        assert.match(
          err.cause!.message,
          /Invalid turn input: maxSteps: Too small: expected number to be >=1; toolFormat: Invalid option/,
        );
        return true;
      });
      assert.equal(h.model.requests.length, 0);
    } finally {
      await h.close();
    }
  });
});
