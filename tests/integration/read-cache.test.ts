import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readAudit } from '../../src/client/audit.js';
import { decode } from '../../src/audit/decode.js';
import type { ToolCallRecord } from '../../src/audit/schema.js';
import type { ScriptHandler } from '../../src/scripted-model/server.js';
import { SETTLED_MS } from '../../src/tools/fingerprint.js';
import type { ToolRequest } from '../../src/workflow-safe/types.js';
import { requestMessages, startHarness, tempDir } from '../helpers/harness.js';

const reads = [
  { name: 'read_file', arguments: { path: 'a.txt' } },
  { name: 'read_file', arguments: { path: 'b.txt' } },
];

/** Files older than the settle time (a file changed within it is never cached). */
async function settledWorkspace(): Promise<string> {
  const ws = tempDir();
  writeFileSync(path.join(ws, 'a.txt'), 'a: the original');
  writeFileSync(path.join(ws, 'b.txt'), 'b: the original');
  await new Promise((r) => setTimeout(r, SETTLED_MS + 200));
  return ws;
}

describe('the read cache', () => {
  it('a repeated read of unchanged files does not run the tool; a write of this job, or a change by anyone else, makes the next read run', async () => {
    const workspace = await settledWorkspace();
    const handler: ScriptHandler = ({ step }) => {
      // Step 3: someone else changes b.txt while the job writes a.txt.
      if (step === 2) writeFileSync(path.join(workspace, 'b.txt'), 'b: changed by another process');
      const replies = [
        { toolCalls: reads },
        { toolCalls: reads },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a: written by the job' } }] },
        { toolCalls: reads },
      ];
      return { reply: replies[step] ?? { content: 'done' } };
    };
    const h = await startHarness({ handler });
    try {
      const handle = await h.start({ workspace });
      assert.equal((await handle.result()).status, 'completed');
      const calls = new Map(
        (await readAudit(h.client, handle.workflowId))
          .filter((r): r is ToolCallRecord => r.type === 'tool_call')
          .map((r) => [r.callId, r]),
      );
      const seen = (id: string) => [calls.get(id)?.cachedFrom ?? null, calls.get(id)?.result?.output];
      assert.deepEqual(seen('s1c1'), [null, 'a: the original']);
      assert.deepEqual(seen('s2c1'), ['s1c1', 'a: the original']);
      assert.deepEqual(seen('s2c2'), ['s1c2', 'b: the original']);
      assert.deepEqual(seen('s4c1'), [null, 'a: written by the job']);
      assert.deepEqual(seen('s4c2'), [null, 'b: changed by another process']);
      // The model got the same text from a hit as from the read it repeats.
      const toolTexts = (n: number) =>
        requestMessages(h.model, n)
          .filter((m) => m.role === 'tool')
          .map((m) => m.content);
      assert.deepEqual(toolTexts(2).slice(2, 4), toolTexts(1).slice(0, 2));
      // Two ways the cache let go: the job's own write dropped a.txt (no check was asked), and the
      // check found b.txt changed by someone else.
      const { events } = await handle.fetchHistory();
      const requests = (events ?? [])
        .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool')
        .map((e) => decode<ToolRequest>(e.activityTaskScheduledEventAttributes!.input)!);
      const asked = (id: string) => requests.find((r) => r.call.id === id)?.cache?.ifUnchanged?.from ?? null;
      assert.deepEqual(['s1c1', 's2c1', 's4c1', 's4c2'].map(asked), [null, 's1c1', null, 's1c2']);
    } finally {
      await h.close();
    }
  });

  it('a job can turn it off', async () => {
    const workspace = await settledWorkspace();
    const h = await startHarness({
      scenario: {
        name: 'no-cache',
        steps: [{ reply: { toolCalls: reads } }, { reply: { toolCalls: reads } }, { reply: { content: 'done' } }],
      },
    });
    try {
      const handle = await h.start({ workspace, readCache: false });
      await handle.result();
      const hits = (await readAudit(h.client, handle.workflowId)).filter((r) => r.type === 'tool_call' && r.cachedFrom);
      assert.deepEqual(hits, []);
    } finally {
      await h.close();
    }
  });
});
