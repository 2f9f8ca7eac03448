import assert from 'node:assert/strict';
import { type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { readAudit } from '../../src/client/audit.js';
import type { ToolCallRecord } from '../../src/audit/schema.js';
import { dagent, dagentBackground } from '../helpers/cli.js';
import { tempDir, temporalAddress, uniqueId } from '../helpers/harness.js';
import { until } from '../helpers/wait.js';

// Workers on several hosts, each with its own folders (separate processes and data folders here;
// `bench/` runs them in network namespaces): a job in a declared workspace runs its tool calls only
// where that workspace is, names its files the same on every host, and waits when no host has it.

const scenario = {
  name: 'workspace',
  steps: [
    {
      reply: { content: null, toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'noted' } }] },
    },
    { reply: { content: null, toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] } },
    { reply: { content: 'done' } },
  ],
};

describe('workspaces on several hosts', () => {
  it('tool calls run on the host that declares the workspace; keys agree across hosts; with no host, the job waits and `dagent status` says so', async () => {
    const dir = tempDir('dagent-hosts-');
    const file = path.join(dir, 'scenario.json');
    writeFileSync(file, JSON.stringify(scenario));
    const shared = realpathSync(tempDir('dagent-shared-'));
    mkdirSync(path.join(dir, 'b'));
    const seenFromB = path.join(dir, 'b', 'repo'); // the same files mounted at another path on host B
    symlinkSync(shared, seenFromB);
    const taskQueue = uniqueId('tq-hosts');
    const env = (host: string) => ({
      DAGENT_TASK_QUEUE: taskQueue,
      DAGENT_SCENARIO: file,
      DAGENT_HOME: path.join(dir, host),
      DAGENT_CONTENT_DIR: path.join(dir, 'content'),
      OPENAI_BASE_URL: '',
      OPENAI_API_KEY: '',
    });
    const hosts: ChildProcess[] = [];
    const logs = new Map<ChildProcess, string>();
    const host = async (name: string, args: string[]) => {
      const p = dagentBackground(['worker', ...args], env(name));
      hosts.push(p);
      logs.set(p, '');
      p.stderr!.on('data', (b) => logs.set(p, logs.get(p) + String(b)));
      await until(`${name} to poll`, async () => logs.get(p)!.includes('Worker polling'), 60_000).catch(
        (err: Error) => {
          throw new Error(`${err.message}\n${logs.get(p)}`);
        },
      );
      return p;
    };
    const connection = await Connection.connect({ address: temporalAddress() });
    const client = new Client({ connection });
    const start = (jobId: string) =>
      client.workflow.start('agentTurn', {
        taskQueue,
        workflowId: jobId,
        // The folder as the CLI host sees it is not on any worker: only the id counts.
        args: [{ task: 'take a note', workspace: path.join(dir, 'cli-host', 'repo'), workspaceId: 'repo' }],
      });
    const toolRuns = async (jobId: string) => {
      const events = (await client.workflow.getHandle(jobId).fetchHistory()).events ?? [];
      const scheduled = new Map<string, string>();
      const where: Array<[string, string]> = [];
      for (const e of events) {
        const s = e.activityTaskScheduledEventAttributes;
        if (s?.activityType?.name === 'runTool') scheduled.set(String(e.eventId), s.taskQueue?.name ?? '');
        const st = e.activityTaskStartedEventAttributes;
        if (st && scheduled.has(String(st.scheduledEventId)))
          where.push([scheduled.get(String(st.scheduledEventId))!, (st.identity ?? '').split('@')[0]!]);
      }
      return where;
    };
    const keys = async (jobId: string) =>
      (await readAudit(client, jobId))
        .filter((r): r is ToolCallRecord => r.type === 'tool_call')
        .map((r) => r.resources);
    try {
      const models = await host('models', []); // no workspace: model calls and workflows only
      const a = await host('a', ['--workspace', `repo=${shared}`]);
      const first = await start(uniqueId('job-ws'));
      assert.equal(((await first.result()) as { status: string }).status, 'completed');
      assert.equal(readFileSync(path.join(shared, 'notes.txt'), 'utf8'), 'noted');
      assert.deepEqual(await toolRuns(first.workflowId), [
        [`${taskQueue}@repo`, String(a.pid)],
        [`${taskQueue}@repo`, String(a.pid)],
      ]);
      assert.deepEqual(await keys(first.workflowId), [['file:repo/notes.txt'], ['file:repo/notes.txt']]);
      assert.ok(models.pid);

      // Host A dies. The next job's model call runs; its tool call waits for a host with 'repo'.
      a.kill('SIGKILL');
      await once(a, 'exit');
      const second = await start(uniqueId('job-ws'));
      const status = await until(
        'status to show the wait',
        async () => {
          const r = await dagent(['status', second.workflowId], { ...env('cli'), TEMPORAL_ADDRESS: temporalAddress() });
          return /waiting \d+ s for a worker with workspace 'repo'/.test(r.stdout) ? r.stdout : null;
        },
        60_000,
      );
      assert.match(status, new RegExp(`1 tool call queued on '${taskQueue}@repo'; last polled by ${a.pid}@`));
      assert.match(status, /A host that has it takes them: dagent worker --workspace repo=DIR/);

      // Host B has the same workspace at another path: it takes the call, and the keys are the same.
      writeFileSync(path.join(shared, 'notes.txt'), 'old');
      const b = await host('b', ['--workspace', `repo=${seenFromB}`]);
      assert.equal(((await second.result()) as { status: string }).status, 'completed');
      assert.equal(readFileSync(path.join(shared, 'notes.txt'), 'utf8'), 'noted');
      assert.deepEqual(
        (await toolRuns(second.workflowId)).map(([, pid]) => pid),
        [String(b.pid), String(b.pid)],
      );
      assert.deepEqual(await keys(second.workflowId), await keys(first.workflowId));
      const wrote = await dagent(['jobs', '--wrote', 'notes.txt', '--workspace-id', 'repo', '--json'], {
        ...env('cli'),
        TEMPORAL_ADDRESS: temporalAddress(),
      });
      const found = await until('both jobs in visibility', async () => {
        const r = await dagent(['jobs', '--wrote', 'notes.txt', '--workspace-id', 'repo', '--json'], {
          ...env('cli'),
          TEMPORAL_ADDRESS: temporalAddress(),
        });
        const jobs = JSON.parse(r.stdout || '[]') as Array<{ jobId: string; wrote: string[] }>;
        return jobs.length >= 2 ? jobs : null;
      });
      assert.equal(wrote.code, 0, wrote.stderr);
      assert.deepEqual(found.map((j) => j.jobId).sort(), [first.workflowId, second.workflowId].sort());
      assert.deepEqual(found[0]!.wrote, ['repo/notes.txt']);
    } finally {
      for (const p of hosts) if (p.exitCode === null && p.signalCode === null) p.kill('SIGINT');
      await Promise.all(hosts.filter((p) => p.exitCode === null && p.signalCode === null).map((p) => once(p, 'exit')));
      await connection.close();
    }
  });
});
