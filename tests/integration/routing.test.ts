import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelCallRecord } from '../../src/audit/schema.js';
import { readAudit } from '../../src/client/audit.js';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { ROUTE_TOP } from '../../src/tools/routing.js';
import { manyTools } from '../helpers/many-tools.js';
import { startHarness } from '../helpers/harness.js';

describe('many tools, offered well', () => {
  it('207 tools: each step offers a ranked subset and find_tools; what find_tools finds is offered next; the audit records the offer', async () => {
    const h = await startHarness({
      tools: [...builtinTools, ...manyTools()],
      scenario: {
        name: 'routing',
        steps: [
          { reply: { toolCalls: [{ name: 'find_tools', arguments: { query: 'refund' } }] } },
          { reply: { toolCalls: [{ name: 'approve_refund', arguments: { id: 'r-7' } }] } },
          { reply: { content: 'payroll summarised, refund approved' } },
        ],
      },
    });
    try {
      const handle = await h.start({ task: 'Summarize the payroll for March.' });
      const r = await handle.result();
      assert.equal(r.answer, 'payroll summarised, refund approved');
      const offered = h.model.requests.map((q) => (q.body.tools ?? []).map((t) => t.function.name));
      assert.ok(offered[0]!.length <= ROUTE_TOP + 1, `${offered[0]!.length} tools offered`);
      assert.ok(offered[0]!.includes('find_tools') && offered[0]!.includes('summarize_payroll'), offered[0]!.join(','));
      assert.ok(!offered[0]!.includes('approve_refund'));
      assert.ok(offered[1]!.includes('approve_refund'), 'found by find_tools, offered the next step');
      const found = h.model.requests[1]!.body.messages.at(-1)!;
      assert.match(String(found.content), /^approve_refund: Approve refund records/m);
      const tool = h.model.requests[2]!.body.messages.at(-1)!;
      assert.equal(tool.content, 'approve_refund(r-7) ok');
      const calls = (await readAudit(h.client, handle.workflowId)).filter(
        (x): x is ModelCallRecord => x.type === 'model_call',
      );
      assert.deepEqual([...calls[0]!.offered!].sort(), [...offered[0]!].sort());
      const bytes = (n: number) => JSON.stringify(h.model.requests[n]!.body.tools).length;
      assert.ok(bytes(0) < 10_000, `${bytes(0)} bytes of tool schemas`);
    } finally {
      await h.close();
    }
  });
});
