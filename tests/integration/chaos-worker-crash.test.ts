import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import type { ToolRequest, ToolResult, ModelRequest } from '../../src/workflow-safe/types.js';
import type { agentTurn } from '../../workflows/agent-turn.js';
import { dagentBackground } from '../helpers/cli.js';
import { tempDir, temporalAddress, uniqueId } from '../helpers/harness.js';
import { defaultPayloadConverter } from '@temporalio/common';

const JOBS = 10;
const KILLS = 5;
const PLUGIN = fileURLToPath(new URL('../fixtures/chaos-tools.ts', import.meta.url));

const SCENARIO = {
  name: 'chaos',
  steps: [
    {
      reply: {
        toolCalls: [
          { name: 'peek', arguments: { key: 'a' } },
          { name: 'put_file', arguments: { path: 'shared.txt', content: 'v1' } },
        ],
      },
    },
    { reply: { toolCalls: [{ name: 'ledger_append', arguments: { path: 'appends.txt', line: 'one' } }] } },
    {
      reply: {
        toolCalls: [
          { name: 'ledger_append', arguments: { path: 'appends.txt', line: 'two' } },
          { name: 'peek', arguments: { key: 'b' } },
        ],
      },
    },
    { reply: { content: 'done' } },
  ],
};

const readLines = (f: string) =>
  existsSync(f)
    ? readFileSync(f, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
const decode = <T>(p: { payloads?: unknown[] | null } | null | undefined): T | undefined =>
  p?.payloads?.[0] ? (defaultPayloadConverter.fromPayload(p.payloads[0] as never) as T) : undefined;

describe('chaos: a worker killed with SIGKILL again and again', () => {
  it(`${JOBS} multi-step jobs all complete; nothing ran more often than the history accounts for; no non-idempotent call ran twice`, async () => {
    const dir = tempDir('dagent-chaos-');
    const ws = tempDir();
    const scenarioFile = path.join(dir, 'scenario.json');
    writeFileSync(scenarioFile, JSON.stringify(SCENARIO));
    const env = {
      DAGENT_TASK_QUEUE: uniqueId('chaos'),
      DAGENT_PLUGINS: PLUGIN,
      DAGENT_SCENARIO: scenarioFile,
      DAGENT_HOME: path.join(dir, 'home'),
      DAGENT_SCRIPTED_LEDGER: path.join(dir, 'model-ledger.jsonl'),
      CHAOS_LEDGER: path.join(dir, 'tool-ledger.jsonl'),
    };
    let worker: ChildProcess;
    const startWorker = () =>
      new Promise<ChildProcess>((resolve, reject) => {
        const w = dagentBackground(['worker'], env);
        let err = '';
        w.stderr!.on('data', (b) => {
          err += b;
          if (err.includes('Worker polling')) resolve(w);
        });
        w.once('exit', (code) => reject(new Error(`worker exited with ${code} before polling:\n${err}`)));
      });
    const kill = async () => {
      const exited = new Promise((r) => worker.once('exit', r));
      worker.kill('SIGKILL');
      await exited;
    };
    worker = await startWorker();
    const connection = await Connection.connect({ address: temporalAddress() });
    const client = new Client({ connection });
    let duringTool = 0;
    try {
      const handles = await Promise.all(
        Array.from({ length: JOBS }, (_, i) =>
          client.workflow.start<typeof agentTurn>('agentTurn', {
            taskQueue: env.DAGENT_TASK_QUEUE,
            workflowId: uniqueId(`chaos-${i}`),
            args: [{ task: `chaos job ${i}`, workspace: ws }],
          }),
        ),
      );
      const results = Promise.all(handles.map((h) => h.result()));
      for (let k = 0; k < KILLS; k++) {
        if (k % 2 === 0) {
          // Kill while some tool is between its start and its end.
          for (let i = 0; i < 200; i++) {
            const l = readLines(env.CHAOS_LEDGER);
            const open = l
              .filter((e) => e.what === 'start')
              .some((s) => !l.some((e) => e.what === 'end' && e.callId === s.callId && e.jobId === s.jobId));
            if (open) {
              duringTool++;
              break;
            }
            await new Promise((r) => setTimeout(r, 50));
          }
        } else {
          await new Promise((r) => setTimeout(r, 300 + Math.random() * 1200));
        }
        await kill();
        worker = await startWorker();
      }
      const done = await results;
      assert.deepEqual(
        done.map((r) => [r.status, r.answer]),
        Array(JOBS).fill(['completed', 'done']),
      );

      const tools = readLines(env.CHAOS_LEDGER);
      const models = readLines(env.DAGENT_SCRIPTED_LEDGER);
      let duplicates = 0;
      let reRuns = 0;
      for (const h of handles) {
        const { events } = await h.fetchHistory();
        const scheduled = new Map<string, { type: string; input: unknown }>();
        const attempts = new Map<string, number>();
        const outcome = new Map<string, ToolResult>();
        for (const e of events ?? []) {
          const s = e.activityTaskScheduledEventAttributes;
          if (s) scheduled.set(String(e.eventId), { type: s.activityType!.name!, input: decode(s.input) });
          const st = e.activityTaskStartedEventAttributes;
          if (st) attempts.set(String(st.scheduledEventId), st.attempt!);
          const c = e.activityTaskCompletedEventAttributes;
          if (c && scheduled.get(String(c.scheduledEventId))?.type === 'runTool')
            outcome.set(
              (scheduled.get(String(c.scheduledEventId))!.input as ToolRequest).call.id,
              decode<ToolResult>(c.result)!,
            );
        }
        for (const [id, a] of scheduled) {
          const tries = attempts.get(id) ?? 0;
          if (a.type === 'runTool') {
            const call = (a.input as ToolRequest).call;
            const starts = tools.filter(
              (e) => e.what === 'start' && e.jobId === h.workflowId && e.callId === call.id,
            ).length;
            assert.ok(
              starts <= Math.max(tries, 1),
              `${h.workflowId} ${call.id}: ${starts} executions, history accounts for ${tries}`,
            );
            if (call.name === 'ledger_append') {
              if (starts > 1) duplicates++;
              const lines = readFileSync(path.join(ws, 'appends.txt'), 'utf8')
                .split('\n')
                .filter((l) => l.startsWith(`${h.workflowId} ${call.id} `));
              assert.ok(lines.length <= 1, `${h.workflowId} ${call.id} appended ${lines.length} times`);
              const r = outcome.get(call.id);
              if (r && !r.isError) assert.equal(lines.length, 1, 'a completed append happened exactly once');
            }
            reRuns += Math.max(0, starts - 1);
          } else if (a.type === 'callModel') {
            const step = (a.input as ModelRequest).step;
            const requests = models.filter(
              (m) => m.task === `chaos job ${handles.indexOf(h)}` && m.step === step - 1,
            ).length;
            assert.ok(
              requests <= Math.max(tries, 1),
              `${h.workflowId} model step ${step}: ${requests} requests, history accounts for ${tries}`,
            );
          }
        }
      }
      assert.equal(duplicates, 0);
      assert.equal(readFileSync(path.join(ws, 'shared.txt'), 'utf8'), 'v1', 'idempotent writes end as if run once');
      console.log(
        `chaos figures: ${JOBS} jobs, ${KILLS} SIGKILLs (${duringTool} during tool execution), ${tools.filter((e) => e.what === 'start').length} tool executions, ${reRuns} retried tool executions (all accounted for by history attempts), non-idempotent duplicates: ${duplicates}`,
      );
      assert.ok(duringTool >= 1, 'at least one kill hit a running tool');
    } finally {
      worker.kill('SIGTERM');
      await connection.close();
    }
  });
});
