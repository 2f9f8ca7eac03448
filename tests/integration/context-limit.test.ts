import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { formatTimeline } from '../../src/audit/timeline.js';
import { readAudit } from '../../src/client/audit.js';
import { startHarness, tempDir } from '../helpers/harness.js';

const MARK = '[Earlier work, compacted';
const LIMIT = 2_500; // tokens: the scripted model counts 4 characters a token
const STEPS = 12;

describe('a long job with a bounded context (compactAtTokens)', () => {
  it('once a call reaches the limit the next sends the conversation compacted, so no request grows past the limit and one step; the audit records each compaction', async () => {
    const workspace = tempDir();
    for (let i = 0; i < STEPS; i++) writeFileSync(path.join(workspace, `f${i}.txt`), `${i} `.repeat(1_000));
    // Steps counted by calls: a compacted conversation holds fewer assistant messages.
    let calls = 0;
    const h = await startHarness({
      handler: () => {
        const n = calls++;
        return n < STEPS
          ? { reply: { toolCalls: [{ name: 'read_file', arguments: { path: `f${n}.txt` } }] } }
          : { reply: { content: 'read them all' } };
      },
    });
    try {
      const handle = await h.start({ workspace, compactAtTokens: LIMIT, maxSteps: STEPS + 2 });
      const r = await handle.result();
      assert.deepEqual([r.status, r.answer], ['completed', 'read them all']);
      const sent = h.model.requests.filter((q) => q.status === 200).map((q) => q.body.messages);
      const tokens = sent.map((m) => Math.ceil(JSON.stringify(m).length / 4));
      const compacted = sent.map((m) => m.some((x) => String(x.content ?? '').startsWith(MARK)));
      const first = compacted.indexOf(true);
      assert.ok(first > 0, `no request was compacted (tokens: ${tokens.join(' ')})`);
      // Without the limit the last request would carry all 12 files (about 6,000 tokens).
      assert.ok(Math.max(...tokens) < LIMIT + 1_000, `a request reached ${Math.max(...tokens)} tokens`);
      assert.ok(tokens[first]! < tokens[first - 1]!, 'the compacted request is smaller than the one before');
      assert.deepEqual(
        sent[first]!.map((m) => m.role),
        ['system', 'user', 'user', 'assistant', 'tool'],
      );
      const audit = await readAudit(h.client, handle.workflowId);
      const compactions = audit.filter((x) => x.type === 'compaction');
      assert.ok(compactions.length >= 2, `${compactions.length} compactions`);
      for (const c of compactions) {
        assert.equal(c.status, 'ok');
        assert.ok(c.summarised! > 0 && c.summarised! < c.messagesBefore);
      }
      // Every step's read is still in the audit with its result, whatever the model was sent.
      assert.equal(audit.filter((x) => x.type === 'tool_call' && x.status === 'ok').length, STEPS);
      assert.match(formatTimeline(audit), /⇊ conversation compacted: \d+ of \d+ messages summarised into one/);
    } finally {
      await h.close();
    }
  });
});
