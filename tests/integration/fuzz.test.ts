import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fetchJobRuns } from '../../src/client/audit.js';
import type { ChatRequestBody } from '../../src/scripted-model/server.js';
import { TOOL_FORMATS, type ToolFormat } from '../../src/workflow-safe/types.js';
import { fuzzReplies } from '../helpers/fuzz-replies.js';
import { startHarness } from '../helpers/harness.js';

// Model output that cannot hurt us: seeded fuzzed replies (native tool_calls of every wrong
// shape, and the four text formats cut, spliced with hostile fragments, repeated hundreds of
// times) drive real jobs on a real worker. Each reply is one step; a job runs until its reply has
// nothing to run (a final answer), then the next job takes the next case.
const PER_FORMAT = 110; // 5 formats: 550 cases

type Msg = ChatRequestBody['messages'][number];

describe('fuzzed model replies', () => {
  it(`${PER_FORMAT * TOOL_FORMATS.length} cases: no workflow-task failure, no retry, every reply answered`, async () => {
    const cases = new Map(TOOL_FORMATS.map((f, i) => [f, fuzzReplies(f, PER_FORMAT, 7_000 + i)]));
    const cursor = new Map<ToolFormat, number>(TOOL_FORMATS.map((f) => [f, 0]));
    const assigned = new Map<string, { format: ToolFormat; index: number }>();
    const formatOf = (body: ChatRequestBody): ToolFormat => {
      const task = String(body.messages.find((m) => m.role === 'user')?.content ?? '');
      return (/fuzz (\w+) job/.exec(task)?.[1] ?? 'native') as ToolFormat;
    };
    const h = await startHarness({
      // Hostile whole replies (raw JSON bodies) test the whole-reply reader; hostile stream pieces
      // are tests/unit/stream-reply.test.ts.
      modelStream: false,
      handler: ({ body, step, conversation }) => {
        const format = formatOf(body);
        const key = `${conversation}:${step}`;
        if (!assigned.has(key)) {
          const index = cursor.get(format)!;
          if (index >= PER_FORMAT) return { reply: { content: 'done' } };
          cursor.set(format, index + 1);
          assigned.set(key, { format, index });
        }
        const c = cases.get(format)![assigned.get(key)!.index]!;
        return c.kind === 'raw'
          ? { faults: [{ status: 200, body: c.body }], reply: { content: 'a retry: the first attempt failed' } }
          : { reply: { content: c.content } };
      },
    });
    try {
      writeFileSync(path.join(h.workspace, 'a.txt'), 'aaa\n');
      const jobs: string[] = [];
      await Promise.all(
        TOOL_FORMATS.map(async (format) => {
          for (let k = 0; cursor.get(format)! < PER_FORMAT; k++) {
            const handle = await h.start({
              task: `fuzz ${format} job ${k}`,
              toolFormat: format,
              maxSteps: 8, // short jobs: each request carries its whole conversation
              noProgressRepeats: 100_000,
            });
            jobs.push(handle.workflowId);
            await handle.result();
          }
        }),
      );
      // 0 workflow-task failures in any run of any job.
      const activityFailures: string[] = [];
      for (const id of jobs) {
        for (const run of await fetchJobRuns(h.client, id)) {
          for (const e of run.events ?? [])
            if (e.activityTaskStartedEventAttributes?.lastFailure)
              activityFailures.push(String(e.activityTaskStartedEventAttributes.lastFailure.message).slice(0, 300));
          const failed = (run.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes);
          assert.equal(
            failed.length,
            0,
            `job ${id}: ${JSON.stringify(failed[0]?.workflowTaskFailedEventAttributes?.failure?.message)}`,
          );
        }
      }
      const ok = h.model.requests.filter((r) => r.status === 200);
      // No case needed a second attempt: every malformed reply was answered, not retried.
      const retried = ok.filter((r) => r.attempt > 0);
      assert.equal(
        retried.length,
        0,
        `retried: ${retried.map((r) => `${r.conversation}:${r.step}`).join(', ')}\n${[...new Set(activityFailures)].join('\n')}`,
      );
      // Every reply with calls got an answer the model can act on: a non-empty message for each
      // native call id, or a non-empty result message in the text formats.
      let answered = 0;
      let tooMany = 0;
      let tooBig = 0;
      for (const r of ok) {
        const msgs = r.body.messages;
        const lastAssistant = msgs.map((m) => m.role).lastIndexOf('assistant');
        if (lastAssistant < 0) continue;
        const after = msgs.slice(lastAssistant + 1);
        assert.ok(after.length > 0, `step ${r.step} of ${r.conversation}: nothing answered the reply`);
        for (const m of after) assert.ok(String(m.content ?? '').trim().length > 0, 'an empty answer');
        const ids = (msgs[lastAssistant] as Msg).tool_calls?.map((c) => c.id) ?? [];
        const answeredIds = after.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
        if (ids.length) assert.deepEqual(answeredIds, ids, 'each native call answered, in order');
        const text = JSON.stringify(after);
        if (/Too many calls in one reply/.test(text)) tooMany++;
        if (/the limit is 1048576 bytes per call/.test(text)) tooBig++;
        answered++;
      }
      assert.ok(answered >= PER_FORMAT * TOOL_FORMATS.length * 0.5, `answered ${answered}`);
      assert.ok(tooMany > 0 && tooBig > 0, `limits said: too many ${tooMany}, too big ${tooBig}`);
      for (const f of TOOL_FORMATS) assert.equal(cursor.get(f), PER_FORMAT, `${f}: every case was played`);
    } finally {
      await h.close();
    }
  });
});
