import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditRecord, ModelCallRecord, ToolCallRecord } from '../../src/audit/schema.js';
import { jobView } from '../../src/ui/layout.js';

const T0 = Date.parse('2026-11-30T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const base = { schemaVersion: 1, jobId: 'job-1' };

const start = (input: Record<string, unknown> = {}): AuditRecord => ({
  ...base,
  type: 'job_start',
  at: at(0),
  runId: 'r',
  workflowType: 'agentTurn',
  input: { task: 'the task', ...input },
});

const model = (step: number, from: number, to: number, o: Partial<ModelCallRecord> = {}): AuditRecord => ({
  ...base,
  type: 'model_call',
  at: at(from),
  step,
  model: 'm',
  format: 'native',
  messagesSent: 2,
  startedAt: at(from),
  endedAt: at(to),
  durationMs: to - from,
  attempts: 1,
  lastFailure: null,
  status: 'ok',
  error: null,
  finishReason: 'tool_calls',
  usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
  content: null,
  callIds: [],
  ...o,
});

const tool = (
  callId: string,
  from: number | null,
  to: number | null,
  o: Partial<ToolCallRecord> = {},
): AuditRecord => ({
  ...base,
  type: 'tool_call',
  at: at(from ?? 0),
  step: Number(/^s(\d+)/.exec(callId)![1]),
  callId,
  name: 'read_file',
  format: 'native',
  arguments: {},
  rawArguments: '{}',
  rawText: null,
  effect: 'read',
  resources: [],
  idempotent: true,
  locks: [],
  status: 'ok',
  rejected: null,
  startedAt: from === null ? null : at(from),
  endedAt: to === null ? null : at(to),
  durationMs: from !== null && to !== null ? to - from : null,
  attempts: 1,
  lastFailure: null,
  error: null,
  result: null,
  ...o,
});

const end = (ms: number, status: 'completed' | 'running' = 'completed'): AuditRecord => ({
  ...base,
  type: 'job_end',
  at: at(ms),
  status,
  answer: status === 'completed' ? 'done' : null,
  steps: 1,
  usage: null,
  error: null,
});

describe('the timeline page layout', () => {
  it('calls that overlap get lanes of their own; a call after them reuses the first free lane', () => {
    const v = jobView([
      start(),
      model(1, 0, 10),
      tool('s1c2', 20, 120),
      tool('s1c1', 20, 100),
      tool('s1c3', 30, 60),
      tool('s1c4', 130, 140),
      end(200),
    ]);
    const bars = v.steps[0]!.bars;
    assert.deepEqual(
      bars.map((b) => [b.id, b.lane]),
      [
        ['step 1', 0],
        ['s1c1', 0],
        ['s1c2', 1],
        ['s1c3', 2],
        ['s1c4', 0],
      ],
    );
    assert.equal(v.spanMs, 200);
  });

  it('a lock wait is drawn before the call and names the holder it waited for', () => {
    const v = jobView([
      start(),
      tool('s1c1', 500, 600, {
        effect: 'write',
        locks: [{ key: 'file:/w/a.txt', token: 7, waitedMs: 420, previousHolder: 'job-0/s3c1' }],
      }),
      end(700),
    ]);
    const b = v.steps[0]!.bars[0]!;
    assert.equal(b.waitMs, 420);
    assert.ok(b.notes.includes('lock file:/w/a.txt · token 7 · waited 420 ms for job-0/s3c1'), b.notes.join('\n'));
  });

  it('a call that never ran is a mark; a call waiting for a person is open to now and says so', () => {
    const now = T0 + 5_000;
    const v = jobView(
      [
        start({ requireApproval: ['write_file'] }),
        tool('s1c1', 100, null, { status: 'rejected', rejected: 'Unknown tool' }),
        tool('s1c2', null, null, { name: 'write_file', status: 'running', at: at(150) }),
        tool('s1c3', null, null, {
          name: 'shell',
          status: 'denied',
          rejected: 'Denied by policy',
          policy: { decision: 'deny', rule: 'danger:fork-bomb', reason: 'a fork bomb' },
          at: at(160),
        }),
        end(0, 'running'),
      ],
      now,
    );
    const [rejected, waiting, denied] = v.steps[0]!.bars;
    assert.equal(rejected!.end, rejected!.start);
    assert.deepEqual([waiting!.status, waiting!.start, waiting!.end], ['waiting for approval', 150, null]);
    assert.deepEqual(denied!.notes, ['policy deny [danger:fork-bomb]: a fork bomb']);
    assert.equal(v.status, 'running');
    assert.equal(v.spanMs, 5_000);
  });

  it('a retried model call says which attempt it is and why the one before failed', () => {
    const v = jobView([start(), model(1, 1000, 1100, { attempts: 3, lastFailure: 'HTTP 503' }), end(1200)]);
    assert.ok(v.steps[0]!.bars[0]!.notes.includes('attempt 3; the one before failed: HTTP 503'));
  });

  it('names the host of each call when the job ran on several, and marks compactions', () => {
    const compaction: AuditRecord = {
      ...base,
      type: 'compaction',
      at: at(900),
      messagesBefore: 40,
      summarised: 38,
      status: 'ok',
    };
    const one = jobView([
      start(),
      tool('s1c1', 100, 200, { worker: '11@h1' }),
      tool('s1c2', 100, 200, { worker: '12@h1' }),
      end(300),
    ]);
    assert.ok(one.steps[0]!.bars.every((b) => !b.notes.some((n) => n.startsWith('ran on'))));
    const two = jobView([
      start(),
      tool('s1c1', 100, 200, { worker: '11@h1' }),
      tool('s1c2', 100, 200, { worker: '12@h2' }),
      compaction,
      end(1000),
    ]);
    assert.deepEqual(
      two.steps[0]!.bars.map((b) => b.notes.find((n) => n.startsWith('ran on'))),
      ['ran on h1 (worker 11@h1)', 'ran on h2 (worker 12@h2)'],
    );
    assert.deepEqual(two.compactions, [{ at: 900, summarised: 38, messagesBefore: 40 }]);
  });
});
