import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { dagent, dagentBackground } from '../helpers/cli.js';
import { tempDir, uniqueId } from '../helpers/harness.js';

const DEMO = fileURLToPath(new URL('../../demo/workspace', import.meta.url));
const SLOW = fileURLToPath(new URL('../../demo/scenario-slow.json', import.meta.url));
const PLUGIN = fileURLToPath(new URL('../fixtures/plugin-tools.ts', import.meta.url));
const demoCopy = () => {
  const ws = tempDir();
  cpSync(DEMO, ws, { recursive: true });
  return ws;
};
/** One data folder and task queue, shared by every command of a test (as one user's shell would). */
const shared = () => ({ DAGENT_HOME: tempDir('dagent-home-'), DAGENT_TASK_QUEUE: uniqueId('q') });
const completed = (r: { code: number; stdout: string; stderr: string }) => {
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual([out.status, out.steps], ['completed', 4], r.stderr);
};

describe('attached runs with no worker up', () => {
  it('three back to back all complete: none trusts the poller the one before left behind', async () => {
    const env = shared();
    for (let i = 0; i < 3; i++) {
      const r = await dagent(['run', 'the demo task', '--workspace', demoCopy(), '--json'], env, 60_000);
      completed(r);
      assert.doesNotMatch(r.stderr, /Using the worker/);
    }
  });

  it('three side by side all complete, whichever finishes first', async () => {
    const env = shared();
    const runs = await Promise.all(
      [0, 1, 2].map(() => dagent(['run', 'the demo task', '--workspace', demoCopy(), '--json'], env, 90_000)),
    );
    runs.forEach(completed);
  });

  it('the worker a run starts loads DAGENT_PLUGINS', async () => {
    const scenario = path.join(tempDir(), 'shout.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        name: 'shout',
        steps: [
          { reply: { toolCalls: [{ name: 'shout', arguments: { text: 'hello' } }] } },
          { reply: { content: 'said it' } },
        ],
      }),
    );
    const r = await dagent(['run', 'shout hello', '--workspace', tempDir()], {
      ...shared(),
      DAGENT_PLUGINS: PLUGIN,
      DAGENT_SCENARIO: scenario,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Plugin tools: shout\./);
    assert.match(r.stdout, /← shout \d+ ms: HELLO!/);
  });

  it('interrupted with SIGINT: the job stays, says how to follow it, and completes once `dagent up` runs', async () => {
    const env = { ...shared(), DAGENT_SCENARIO: SLOW };
    const ws = demoCopy();
    const jobId = uniqueId('interrupted');
    const run = dagentBackground(['run', 'the demo task', '--workspace', ws, '--id', jobId], env);
    let stdout = '';
    let stderr = '';
    run.stdout!.on('data', (b) => (stdout += b));
    run.stderr!.on('data', (b) => (stderr += b));
    const exited = new Promise<number | null>((r) => run.once('close', r));
    for (let i = 0; i < 200 && !/step 1 {2}model replied/.test(stdout); i++)
      await new Promise((r) => setTimeout(r, 100));
    assert.match(stdout, /step 1 {2}model replied/, `the job got going before the interrupt\n${stderr}`);
    run.kill('SIGINT');
    assert.equal(await exited, 130, stderr);
    assert.match(
      stderr,
      new RegExp(`Interrupted: job ${jobId} is durable and goes on whenever a worker serves task queue`),
    );
    assert.match(stderr, new RegExp(`dagent watch ${jobId}`));
    const midway = JSON.parse((await dagent(['status', jobId, '--json'], env)).stdout);
    assert.equal(midway.status, 'running', 'the job outlived the command');
    try {
      const up = await dagent(['up'], env);
      assert.equal(up.code, 0, up.stderr);
      completed(await dagent(['result', jobId, '--json'], env, 90_000));
      assert.match(readFileSync(path.join(ws, 'STATUS.md'), 'utf8'), /Port: 8080/);
    } finally {
      await dagent(['down'], env);
    }
  });
});
