import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { parseScenario } from '../../src/scripted-model/scenario.js';
import { startScriptedModel } from '../../src/scripted-model/server.js';
import { spawnDevServer, waitForServer } from '../../src/temporal/dev-server.js';
import { freePort } from '../../src/temporal/ephemeral-server.js';
import { findTemporalCli } from '../../src/temporal/locate-cli.js';
import type { agentTurn } from '../../workflows/agent-turn.js';
import { progressQuery } from '../../src/workflow-safe/messages.js';
import { createAgentWorker } from '../../src/worker/create-worker.js';
import { fetchJobRuns } from '../../src/client/audit.js';
import { tempDir, uniqueId } from '../helpers/harness.js';

describe('the Temporal server restarted mid-job', () => {
  it('on the same SQLite file: the job picks up where it was and completes', async () => {
    const dir = tempDir('dagent-restart-');
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    const opts = {
      cliPath: findTemporalCli()!,
      port,
      dbFile: path.join(dir, 'temporal.db'),
      logFile: path.join(dir, 'server.log'),
    };
    let server = spawnDevServer(opts);
    await waitForServer(address, 60_000, server, opts.logFile);
    const model = await startScriptedModel({
      scenario: parseScenario({
        name: 'slow',
        steps: [
          {
            delayMs: 300,
            reply: { toolCalls: [{ name: 'write_file', arguments: { path: 'one.txt', content: '1' } }] },
          },
          {
            delayMs: 1500,
            reply: { toolCalls: [{ name: 'write_file', arguments: { path: 'two.txt', content: '2' } }] },
          },
          { delayMs: 300, reply: { content: 'survived' } },
        ],
      }),
    });
    const taskQueue = uniqueId('restart');
    const worker = await createAgentWorker({
      address,
      namespace: 'default',
      taskQueue,
      model: { baseURL: model.url, apiKey: 'k', model: 'm', timeoutMs: 10_000 },
    });
    const running = worker.run();
    try {
      let conn = await Connection.connect({ address });
      const jobId = uniqueId('survivor');
      const handle = await new Client({ connection: conn }).workflow.start<typeof agentTurn>('agentTurn', {
        taskQueue,
        workflowId: jobId,
        args: [{ task: 'survive', workspace: dir }],
      });
      let atStep2 = false;
      for (let i = 0; i < 100 && !atStep2; i++) {
        const ev = await handle.query(progressQuery, 0).then(
          (p) => p.events,
          () => [],
        );
        atStep2 = ev.some((e) => e.kind === 'model_start' && e.step === 2);
        if (!atStep2) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(atStep2, 'the job reached step 2 before the server went down');
      const requestsBefore = model.requests.length;
      await conn.close();

      server.kill('SIGTERM');
      await new Promise((r) => server.once('close', r));
      await new Promise((r) => setTimeout(r, 1000));
      server = spawnDevServer(opts);
      await waitForServer(address, 60_000, server, opts.logFile);
      const restartedAt = Date.now();

      conn = await Connection.connect({ address });
      const again = new Client({ connection: conn }).workflow.getHandle(jobId);
      const r = await again.result();
      assert.deepEqual([r.status, r.answer, r.steps], ['completed', 'survived', 3]);
      const closedAt = (await again.describe()).closeTime!.getTime();
      assert.ok(closedAt > restartedAt, 'the job was still running when the server went down');
      // Completed work was not redone: step 1's model call ran once, and its write ran once.
      const steps = model.requests
        .filter((q) => q.status === 200)
        .map((q) => q.body.messages.filter((m: { role: string }) => m.role === 'assistant').length);
      assert.equal(
        steps.filter((n) => n === 0).length,
        1,
        `step 1 was asked once (requests before the restart: ${requestsBefore})`,
      );
      const runs = await fetchJobRuns(new Client({ connection: conn }), jobId);
      const events = runs.flatMap((h) => h.events ?? []);
      const toolIds = new Set(
        events
          .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool')
          .map((e) => Number(e.eventId)),
      );
      const toolAttempts = events
        .filter((e) => toolIds.has(Number(e.activityTaskStartedEventAttributes?.scheduledEventId)))
        .map((e) => e.activityTaskStartedEventAttributes!.attempt);
      assert.deepEqual(toolAttempts, [1, 1], 'each write ran in one attempt: nothing was scheduled or run again');
      await conn.close();
    } finally {
      worker.shutdown();
      await running.catch(() => {});
      await model.close();
      server.kill('SIGTERM');
      await new Promise((r) => server.once('close', r));
    }
  });
});
