import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import type { ModelReply, ModelRequest, ToolRequest, ToolResult } from '../../src/workflow-safe/types.js';
import type { AgentTurnWorkflow } from '../../src/workflow-safe/workflow-types.js';
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

/** A small seeded PRNG (mulberry32). */
function mulberry32(a: number): () => number {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
    // Seeded, so a failing run can be repeated: CHAOS_SEED=<the seed printed> npm test -- chaos
    const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);
    const random = mulberry32(seed);
    const kills: Array<{ when: string; tool?: string; jobId?: string; callId?: string }> = [];
    /** Waits until the current worker (by pid) runs a tool call (of `tool`, if given) that has not ended. */
    const openCall = async (tool?: string) => {
      for (let i = 0; i < 400; i++) {
        const l = readLines(env.CHAOS_LEDGER).filter((e) => e.pid === worker.pid);
        const open = l.find(
          (s) =>
            s.what === 'start' &&
            (!tool || s.tool === tool) &&
            !l.some((e) => e.what === 'end' && e.callId === s.callId && e.jobId === s.jobId),
        );
        if (open) return open as { tool: string; jobId: string; callId: string };
        await new Promise((r) => setTimeout(r, 25));
      }
      return null;
    };
    try {
      const handles = await Promise.all(
        Array.from({ length: JOBS }, (_, i) =>
          client.workflow.start<AgentTurnWorkflow>('agentTurn', {
            taskQueue: env.DAGENT_TASK_QUEUE,
            workflowId: uniqueId(`chaos-${i}`),
            args: [{ task: `chaos job ${i}`, workspace: ws }],
          }),
        ),
      );
      const results = Promise.all(handles.map((h) => h.result()));
      for (let k = 0; k < KILLS; k++) {
        if (k % 2 === 0) {
          // The first kill lands inside a non-idempotent call; later even ones inside any call.
          const open = await openCall(k === 0 ? 'ledger_append' : undefined);
          if (open) kills.push({ when: 'during a call', tool: open.tool, jobId: open.jobId, callId: open.callId });
        } else {
          await new Promise((r) => setTimeout(r, 300 + random() * 1200));
          kills.push({ when: 'at a random moment' });
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
        // A call may have several tool activities: a write whose earlier attempt had already released
        // its lock takes it again in a new activity (LockLost). The history accounts for all of them.
        const triesOfCall = new Map<string, number>();
        const counted = new Set<string>();
        for (const [id, a] of scheduled)
          if (a.type === 'runTool') {
            const callId = (a.input as ToolRequest).call.id;
            triesOfCall.set(callId, (triesOfCall.get(callId) ?? 0) + Math.max(attempts.get(id) ?? 0, 1));
          }
        for (const [id, a] of scheduled) {
          const tries = attempts.get(id) ?? 0;
          if (a.type === 'runTool') {
            const call = (a.input as ToolRequest).call;
            const starts = tools.filter(
              (e) => e.what === 'start' && e.jobId === h.workflowId && e.callId === call.id,
            ).length;
            const accounted = triesOfCall.get(call.id) ?? 1;
            assert.ok(
              starts <= accounted,
              `${h.workflowId} ${call.id}: ${starts} executions, history accounts for ${accounted}`,
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
            if (!counted.has(call.id)) reRuns += Math.max(0, starts - 1);
            counted.add(call.id);
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
      for (const h of handles) {
        const put = readFileSync(path.join(ws, 'shared.txt.d', h.workflowId), 'utf8');
        assert.equal(put, `v1 ${h.workflowId}`, "each job's idempotent write holds its own content, once");
      }

      // The kill inside the non-idempotent call: it started once, was not retried, and the model was told the outcome is unknown.
      const hit = kills[0]!;
      assert.equal(
        hit.tool,
        'ledger_append',
        `the first kill landed inside a non-idempotent call (${JSON.stringify(kills)})`,
      );
      const hitStarts = tools.filter((e) => e.what === 'start' && e.jobId === hit.jobId && e.callId === hit.callId);
      assert.equal(hitStarts.length, 1, 'the interrupted non-idempotent call started once');
      const hitJob = handles.find((h) => h.workflowId === hit.jobId)!;
      const hitEvents = (await hitJob.fetchHistory()).events ?? [];
      const hitScheduled = hitEvents.find(
        (e) => (decode<ToolRequest>(e.activityTaskScheduledEventAttributes?.input)?.call?.id ?? '') === hit.callId,
      );
      const hitAttempts = hitEvents
        .filter(
          (e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId ?? '') === String(hitScheduled?.eventId),
        )
        .map((e) => e.activityTaskStartedEventAttributes!.attempt);
      assert.deepEqual(hitAttempts, [1], 'no retry of the interrupted non-idempotent call');
      // The model knows the call by the provider's id; the job by its own.
      const planned = hitEvents
        .flatMap((e) => decode<ModelReply>(e.activityTaskCompletedEventAttributes?.result)?.calls ?? [])
        .find((c) => c.id === hit.callId);
      assert.ok(planned, 'the interrupted call is in a model reply');
      const toldModel = hitEvents
        .map((e) => decode<ModelRequest>(e.activityTaskScheduledEventAttributes?.input))
        .flatMap((req) => req?.append ?? req?.messages ?? [])
        .find((m) => m.role === 'tool' && m.tool_call_id === (planned.providerId ?? planned.id));
      assert.match(
        String(toldModel?.content),
        /the outcome of this call is unknown \(it was not retried because 'ledger_append' is not idempotent\)/,
      );

      const during = kills.filter((x) => x.when === 'during a call').length;
      console.log(
        `chaos figures (seed ${seed}): ${JOBS} jobs, ${KILLS} SIGKILLs (${during} inside a running call of the live worker, the first inside ledger_append), ${tools.filter((e) => e.what === 'start').length} tool executions, ${reRuns} retried tool executions (all accounted for by history attempts), non-idempotent duplicates: ${duplicates}`,
      );
    } finally {
      worker.kill('SIGTERM');
      await connection.close();
    }
  });
});
