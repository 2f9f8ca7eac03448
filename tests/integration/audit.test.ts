import assert from 'node:assert/strict';
import { realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { auditRecord, type AuditRecord, type ModelCallRecord, type ToolCallRecord } from '../../src/audit/schema.js';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { derivedWorkspaceId } from '../../src/tools/workspace.js';
import { dagent } from '../helpers/cli.js';
import { startHarness, tempDir, type Harness } from '../helpers/harness.js';
import { probeTools, type Interval } from '../helpers/probe-tools.js';

const SCENARIO = {
  name: 'audited',
  steps: [
    {
      reply: {
        content: 'Reading.',
        toolCalls: [
          { name: 'slow_read', arguments: { key: 'x' } },
          { name: 'slow_read', arguments: { key: 'y' } },
          { name: 'drop_database', arguments: { really: true } },
        ],
      },
    },
    {
      faults: [{ status: 500 }],
      reply: { content: null, toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'x and y' } }] },
    },
    { reply: { content: 'Wrote out.txt.' } },
  ],
};

const parseLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AuditRecord);

describe('dagent audit', () => {
  const reads: Interval[] = [];
  let h: Harness;
  let jobId: string;
  let withWorker: { json: string; text: string };

  before(async () => {
    h = await startHarness({ tools: [...builtinTools, ...probeTools(reads, 2)], scenario: SCENARIO });
    const handle = await h.start({ task: 'audit me' });
    jobId = handle.workflowId;
    await handle.result();
    withWorker = {
      json: (await dagent(['audit', jobId, '--json'])).stdout,
      text: (await dagent(['audit', jobId])).stdout,
    };
  });
  after(() => h.close());

  it('records every model call and tool call, in order, with attempts, durations, arguments and locks', () => {
    const records = parseLines(withWorker.json);
    for (const r of records) assert.ok(auditRecord.safeParse(r).success, JSON.stringify(r));
    assert.ok(records.every((r) => r.schemaVersion === 1 && r.jobId === jobId));
    const shape = records.map((r) =>
      r.type === 'tool_call' ? `tool:${r.name}:${r.status}` : r.type === 'model_call' ? `model:${r.step}` : r.type,
    );
    assert.deepEqual(shape, [
      'job_start',
      'model:1',
      'tool:drop_database:rejected',
      'tool:slow_read:ok',
      'tool:slow_read:ok',
      'model:2',
      'tool:write_file:ok',
      'model:3',
      'job_end',
    ]);
    const tools = records.filter((r): r is ToolCallRecord => r.type === 'tool_call');
    const models = records.filter((r): r is ModelCallRecord => r.type === 'model_call');

    const [rejected, x, y, write] = tools;
    assert.match(rejected!.rejected!, /Unknown tool 'drop_database'\. Available tools: /);
    assert.deepEqual(rejected!.arguments, null);
    assert.equal(rejected!.rawArguments, '{"really":true}');

    assert.deepEqual(
      [x!.arguments, y!.arguments],
      [{ key: 'x' }, { key: 'y' }],
      'the arguments the scripted model sent',
    );
    assert.deepEqual(reads.map((r) => r.key).sort(), ['x', 'y'], 'the arguments the tool saw');
    for (const r of [x!, y!]) {
      assert.ok(r.durationMs! >= 0 && r.durationMs! < 10_000, `duration ${r.durationMs}`);
      assert.equal(r.effect, 'read');
      assert.equal(r.attempts, 1);
    }
    // Each read waited for the other (a latch), so their recorded spans must overlap.
    const [sx, ex, sy, ey] = [x!.startedAt!, x!.endedAt!, y!.startedAt!, y!.endedAt!].map((t) => Date.parse(t)) as [
      number,
      number,
      number,
      number,
    ];
    assert.ok(sx <= ey && sy <= ex, 'the audit shows the reads ran at the same time');
    assert.ok(reads.every((r) => r.met));

    assert.deepEqual(write!.arguments, { path: 'out.txt', content: 'x and y' });
    assert.equal(write!.effect, 'write');
    assert.equal(write!.locks.length, 1);
    assert.equal(write!.locks[0]!.key, write!.resources[0]);
    assert.ok(write!.locks[0]!.token > 0);
    assert.match(write!.result!.output, /^Wrote 7 bytes to out\.txt\./);

    assert.deepEqual(
      models.map((m) => m.attempts),
      [1, 2, 1],
    );
    assert.match(models[1]!.lastFailure!, /HTTP 500/);
    assert.deepEqual(
      h.model.requests.map((q) => q.status),
      [200, 500, 200, 200],
      'the scripted server saw the same attempts',
    );
    assert.deepEqual(
      models.map((m) => m.messagesSent),
      h.model.requests.filter((q) => q.status === 200).map((q) => q.body.messages.length),
    );
    assert.ok(models.every((m) => m.durationMs !== null && m.usage!.totalTokens > 0));

    const end = records.at(-1)!;
    assert.ok(end.type === 'job_end');
    assert.deepEqual([end.status, end.answer, end.steps], ['completed', 'Wrote out.txt.', 3]);
  });

  it('prints a timeline with parallel calls marked, retries, locks and the answer', () => {
    const t = withWorker.text;
    assert.match(t, new RegExp(`^Job ${jobId} \\(agentTurn\\)`));
    assert.equal((t.match(/∥ slow_read/g) ?? []).length, 2);
    assert.match(
      t,
      /step 2 {2}model scripted {2}\d+ ms {2}\d+ tokens {2}→ 1 tool call {2}attempts 2 \(before: .*HTTP 500/,
    );
    assert.match(t, /✗ drop_database \{"really":true\} {2}rejected: Unknown tool/);
    assert.match(t, /write_file .* lock token \d+/);
    assert.match(t, /end: completed after 3 steps/);
  });

  it('gives the same audit with no worker running (it reads history, not the workflow)', async () => {
    await h.close();
    h = { close: async () => {} } as unknown as Harness;
    assert.equal((await dagent(['audit', jobId, '--json'])).stdout, withWorker.json);
  });

  it('exports a scenario that replays the job offline with the same calls', async () => {
    const file = path.join(tempDir(), 'scenario.json');
    assert.equal((await dagent(['export', jobId, '--scenario', file])).code, 0);
    const replay = await startHarness({
      tools: [...builtinTools, ...probeTools([], 1)],
      scenario: JSON.parse((await import('node:fs')).readFileSync(file, 'utf8')),
    });
    try {
      const again = await replay.start({ task: 'audit me' });
      assert.equal((await again.result()).answer, 'Wrote out.txt.');
      assert.deepEqual(
        replay.model.requests.map((q) => q.status),
        [200, 500, 200, 200],
        'the recorded retry is played as a fault',
      );
      const calls = (r: string) =>
        parseLines(r)
          .filter((x): x is ToolCallRecord => x.type === 'tool_call')
          .map((c) => [c.name, c.rawArguments, c.status]);
      assert.deepEqual(calls((await dagent(['audit', again.workflowId, '--json'])).stdout), calls(withWorker.json));
    } finally {
      await replay.close();
    }
  });
});

describe('dagent jobs', () => {
  it('finds exactly the jobs that wrote a path, from visibility', async () => {
    const h = await startHarness({
      handler: ({ body, step }) => {
        const task = String(body.messages.find((m) => m.role === 'user')!.content);
        if (step > 0) return { reply: { content: 'ok' } };
        const [verb, file] = task.split(' ');
        return {
          reply: {
            toolCalls: [
              verb === 'write'
                ? { name: 'write_file', arguments: { path: file!, content: task } }
                : { name: 'read_file', arguments: { path: file! } },
            ],
          },
        };
      },
    });
    try {
      writeFileSync(path.join(h.workspace, 'x.txt'), 'x');
      const ids: Record<string, string> = {};
      for (const task of ['write x.txt', 'write y.txt', 'read x.txt']) {
        const handle = await h.start({ task });
        await handle.result();
        ids[task] = handle.workflowId;
      }
      const find = async (args: string[], want: number) => {
        for (let i = 0; i < 50; i++) {
          const r = await dagent(['jobs', ...args, '--json']);
          assert.equal(r.code, 0, r.stderr);
          const jobs = JSON.parse(r.stdout) as Array<{
            jobId: string;
            status: string;
            tools: string[];
            wrote: string[];
          }>;
          if (jobs.length >= want) return jobs;
          await new Promise((res) => setTimeout(res, 200));
        }
        throw new Error(`jobs ${args.join(' ')} never found ${want}`);
      };
      // A path inside the workspace, relative to it: the key is the workspace's id and that path.
      const wroteX = await find(['--wrote', 'x.txt', '--workspace', h.workspace], 1);
      assert.deepEqual(
        wroteX.map((j) => j.jobId),
        [ids['write x.txt']],
      );
      assert.deepEqual([wroteX[0]!.status, wroteX[0]!.tools], ['completed', ['write_file']]);
      assert.deepEqual(wroteX[0]!.wrote, [`${derivedWorkspaceId(realpathSync(h.workspace))}/x.txt`]);
      const wroteY = await find(
        [
          '--wrote',
          path.join(h.workspace, 'y.txt'),
          '--workspace',
          h.workspace,
          '--tool',
          'write_file',
          '--status',
          'completed',
          '--since',
          '10m',
        ],
        1,
      );
      assert.deepEqual(
        wroteY.map((j) => j.jobId),
        [ids['write y.txt']],
      );
      const bad = await dagent(['jobs', '--since', 'yesterday']);
      assert.equal(bad.code, 2);
      assert.match(
        bad.stderr,
        /option '--since <duration>' argument 'yesterday' is invalid\. Give a duration like 30s, 30m, 12h or 7d/,
      );
    } finally {
      await h.close();
    }
  });
});
