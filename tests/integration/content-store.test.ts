import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { z } from 'zod';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { dagent } from '../helpers/cli.js';
import { startHarness } from '../helpers/harness.js';

const BIG = (n: number) => `${String(n).repeat(15_000)}END`;

describe('long tool outputs', () => {
  it('stay out of history (a reference instead), reach the model whole, and show in the audit', async () => {
    const big = defineTool({ name: 'big', description: 'A long output.', input: z.object({ n: z.number() }), effect: 'read', execute: ({ n }) => BIG(n) });
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
      const last = h.model.requests.at(-1)!.body.messages.filter((m) => m.role === 'tool').map((m) => m.content);
      assert.deepEqual(last, [BIG(1), BIG(2), BIG(3)], 'the model sees every output whole');

      const json = historyToJSON(await handle.fetchHistory());
      const decoded: string[] = [];
      JSON.parse(json, (k, v) => (k === 'data' && typeof v === 'string' && decoded.push(Buffer.from(v, 'base64').toString('utf8')), v));
      const text = decoded.join('\n');
      assert.ok(!text.includes('1'.repeat(1000)), 'no long output is in the history');
      assert.match(text, /\[\[dagent-content sha256:[0-9a-f]{64} 15003 chars\]\]/);
      assert.ok(text.length < 40_000, `history payloads hold ${text.length} characters`);

      const audit = (await dagent(['audit', handle.workflowId, '--json'])).stdout.trim().split('\n').map((l) => JSON.parse(l));
      const outputs = audit.filter((r: { type: string }) => r.type === 'tool_call').map((r: { result: { output: string; bytes: number } }) => [r.result.output === BIG(Number(r.result.output[0])), r.result.bytes]);
      assert.deepEqual(outputs, [[true, 15003], [true, 15003], [true, 15003]]);
    } finally {
      await h.close();
    }
  });
});
