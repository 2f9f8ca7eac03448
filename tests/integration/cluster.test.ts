import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { parseScenario } from '../../src/scripted-model/scenario.js';
import { startScriptedModel } from '../../src/scripted-model/server.js';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { ContentStore } from '../../src/content/store.js';
import { PostgresBlobs } from '../../src/content/postgres-blobs.js';
import { createAgentWorker } from '../../src/worker/create-worker.js';
import { clusterSql, freePortBlock } from '../../src/temporal/cluster.js';
import { installRuntime } from '../../src/worker/runtime.js';
import { dagent } from '../helpers/cli.js';
import { tempDir, uniqueId } from '../helpers/harness.js';
import { until } from '../helpers/wait.js';

describe('dagent cluster: Temporal on PostgreSQL', () => {
  it('comes up on PostgreSQL, runs a job with its content store there, and the job survives the server killed and everything restarted', async () => {
    installRuntime('ERROR');
    const dir = tempDir('dagent-cluster-');
    const port = await freePortBlock();
    const pgPort = await freePortBlock();
    const flags = ['--dir', dir, '--port', String(port), '--pg-port', String(pgPort)];
    const down = () => dagent(['cluster', 'down', ...flags]);
    const up = await dagent(['cluster', 'up', ...flags], {}, 230_000);
    if (up.code !== 0) await down();
    assert.equal(up.code, 0, up.stderr);
    const address = `127.0.0.1:${port}`;
    const contentUrl = `postgres://temporal@127.0.0.1:${pgPort}/dagent_content`;
    assert.equal(up.stdout.trim(), `export TEMPORAL_ADDRESS=${address}\nexport DAGENT_CONTENT_URL=${contentUrl}`);
    const psql = (db: string, sql: string) => clusterSql(pgPort, db, sql);
    const model = await startScriptedModel({
      scenario: parseScenario({
        name: 'cluster',
        steps: [
          // Long arguments: history holds a reference to them in the content store.
          {
            reply: { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'one '.repeat(2000) } }] },
          },
          // The server is killed while this step's model call waits.
          {
            delayMs: 4_000,
            reply: { toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'two' } }] },
          },
          { reply: { content: 'done' } },
        ],
      }),
    });
    const taskQueue = uniqueId('tq-cluster');
    const worker = await createAgentWorker({
      address,
      taskQueue,
      model: { baseURL: model.url, apiKey: 'k', model: 'scripted', timeoutMs: 30_000 },
      tools: builtinTools,
      store: new ContentStore(new PostgresBlobs(contentUrl)),
      warn: () => {},
    });
    const running = worker.run();
    const connection = await Connection.connect({ address });
    try {
      const client = new Client({ connection });
      const workspace = tempDir();
      const handle = await client.workflow.start('agentTurn', {
        taskQueue,
        workflowId: uniqueId('job-cluster'),
        args: [{ task: 'write two files', workspace }],
      });
      await until('the second model call', async () => model.requests.some((r) => r.step === 1), 60_000);
      // The server dies; then PostgreSQL stops and both start again (the worker's store waits it out).
      const pid = Number(readFileSync(path.join(dir, 'server.pid'), 'utf8'));
      process.kill(pid, 'SIGKILL');
      assert.equal((await down()).code, 0);
      const again = await dagent(['cluster', 'up', ...flags], {}, 120_000);
      assert.equal(again.code, 0, again.stderr);
      const result = (await handle.result()) as { status: string; answer: string };
      assert.deepEqual([result.status, result.answer], ['completed', 'done']);
      assert.equal(readFileSync(path.join(workspace, 'b.txt'), 'utf8'), 'two');
      // The job lives in PostgreSQL, and so does its conversation.
      assert.equal(
        await psql('temporal', `select count(*) from executions where workflow_id = '${handle.workflowId}'`),
        '1',
      );
      assert.ok(Number(await psql('dagent_content', 'select count(*) from dagent_blobs')) >= 3);
      const env = { TEMPORAL_ADDRESS: address, DAGENT_CONTENT_URL: contentUrl, DAGENT_HOME: path.join(dir, 'cli') };
      const audit = await dagent(['audit', handle.workflowId], env);
      assert.equal(audit.code, 0, audit.stderr);
      assert.match(audit.stdout, /write_file \{"path":"b\.txt","content":"two"\}/);
      // A blob gone from the database: the audit says which, and where it looked.
      const gone = await psql('dagent_content', 'delete from dagent_blobs returning hash');
      assert.ok(gone);
      const broken = await dagent(['audit', handle.workflowId], env);
      assert.notEqual(broken.code, 0);
      assert.match(
        broken.stderr,
        new RegExp(
          `Content sha256:(${gone.split('\n').join('|')}) is missing from PostgreSQL 127\\.0\\.0\\.1:${pgPort}/dagent_content`,
        ),
      );
      const status = await dagent(['cluster', 'status', ...flags]);
      assert.match(status.stdout, /temporal-server: running \(pid \d+\)/);
      assert.match(status.stdout, /PostgreSQL: running/);
    } finally {
      worker.shutdown();
      await running.catch(() => {});
      await connection.close();
      await model.close();
      const stopped = await down();
      assert.equal(stopped.code, 0, stopped.stderr);
      assert.match(stopped.stderr, /temporal-server: stopped[\s\S]*PostgreSQL: stopped/);
    }
  });
});
