import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { z } from 'zod';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { dagent } from '../helpers/cli.js';
import { startHarness } from '../helpers/harness.js';

const BIG = (n: number) => `${String(n).repeat(15_000)}END`;

describe('long tool arguments and replies', () => {
  it('stay out of history too; the tool gets the whole arguments, the model sees its own reply whole', async () => {
    const content = `${'line of a big file\n'.repeat(1500)}THE END`;
    const reply = `Here is my plan. ${'I will be thorough. '.repeat(400)}`;
    const h = await startHarness({
      scenario: {
        name: 'big-args',
        steps: [
          { reply: { content: reply, toolCalls: [{ name: 'write_file', arguments: { path: 'big.txt', content } }] } },
          { reply: { content: 'written' } },
        ],
      },
    });
    try {
      const handle = await h.start();
      assert.equal((await handle.result()).answer, 'written');
      assert.equal(
        (await import('node:fs')).readFileSync((await import('node:path')).join(h.workspace, 'big.txt'), 'utf8'),
        content,
      );
      const sent = h.model.requests.at(-1)!.body.messages.find((m) => m.role === 'assistant')!;
      assert.equal(sent.content, reply);
      assert.equal(sent.tool_calls![0]!.function.arguments, JSON.stringify({ path: 'big.txt', content }));

      const json = historyToJSON(await handle.fetchHistory());
      const decoded: string[] = [];
      JSON.parse(
        json,
        (k, v) => (k === 'data' && typeof v === 'string' && decoded.push(Buffer.from(v, 'base64').toString('utf8')), v),
      );
      const text = decoded.join('\n');
      const count = (re: RegExp) => (text.match(re) ?? []).length;
      assert.ok(
        count(/line of a big file/g) < 5,
        `the long argument is in history (${count(/line of a big file/g)} times)`,
      );
      assert.ok(
        count(/I will be thorough/g) < 5,
        `the long reply is in history (${count(/I will be thorough/g)} times)`,
      );

      const audit = (await dagent(['audit', handle.workflowId, '--json'])).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const write = audit.find((r: { type: string }) => r.type === 'tool_call');
      assert.deepEqual(write.arguments, { path: 'big.txt', content });
      assert.equal(audit.find((r: { type: string }) => r.type === 'model_call').content, reply);
    } finally {
      await h.close();
    }
  });
});

describe('long tool outputs', () => {
  it('stay out of history (a reference instead), reach the model whole, and show in the audit', async () => {
    const big = defineTool({
      name: 'big',
      description: 'A long output.',
      input: z.object({ n: z.number() }),
      effect: 'read',
      execute: ({ n }) => BIG(n),
    });
    const h = await startHarness({
      tools: [...builtinTools, big],
      scenario: {
        name: 'big',
        steps: [
          ...[1, 2, 3].map((n) => ({ reply: { toolCalls: [{ name: 'big', arguments: { n } }] } })),
          { reply: { content: 'read it all' } },
        ],
      },
    });
    try {
      const handle = await h.start();
      assert.equal((await handle.result()).answer, 'read it all');
      const last = h.model.requests
        .at(-1)!
        .body.messages.filter((m) => m.role === 'tool')
        .map((m) => m.content);
      assert.deepEqual(last, [BIG(1), BIG(2), BIG(3)], 'the model sees every output whole');

      const json = historyToJSON(await handle.fetchHistory());
      const decoded: string[] = [];
      JSON.parse(
        json,
        (k, v) => (k === 'data' && typeof v === 'string' && decoded.push(Buffer.from(v, 'base64').toString('utf8')), v),
      );
      const text = decoded.join('\n');
      assert.ok(!text.includes('1'.repeat(1000)), 'no long output is in the history');
      assert.match(text, /\[\[dagent-content sha256:[0-9a-f]{64} 15003 chars\]\]/);
      assert.ok(text.length < 40_000, `history payloads hold ${text.length} characters`);

      const audit = (await dagent(['audit', handle.workflowId, '--json'])).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const outputs = audit
        .filter((r: { type: string }) => r.type === 'tool_call')
        .map((r: { result: { output: string; bytes: number } }) => [
          r.result.output === BIG(Number(r.result.output[0])),
          r.result.bytes,
        ]);
      assert.deepEqual(outputs, [
        [true, 15003],
        [true, 15003],
        [true, 15003],
      ]);
    } finally {
      await h.close();
    }
  });
});
