import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { installRuntime } from '../../src/worker/runtime.js';

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));
const histories = readdirSync(path.join(fixtures, 'histories')).filter((f) => f.endsWith('.json'));
/** The workflow id a fixture was recorded under (a session's child ids derive from it). */
const jobIdOf = (f: string) => f.replace(/(-run\d+)?\.json$/, '');
const load = (f: string) => historyFromJSON(JSON.parse(readFileSync(path.join(fixtures, 'histories', f), 'utf8')));

describe('committed histories', () => {
  installRuntime('ERROR');

  it('replay against the current workflow code without a determinism error', async () => {
    // Turns with tools, text protocols, retries, an approval, a lock wait, continue-as-new runs, a session, a cancellation.
    assert.ok(histories.length >= 10);
    for (const f of histories) {
      await Worker.runReplayHistory(
        { workflowBundle: { codePath: process.env.DAGENT_WORKFLOW_BUNDLE! }, replayName: f },
        load(f),
        jobIdOf(f),
      );
    }
  });

  it('fail to replay against a deliberately non-deterministic change', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: path.join(fixtures, 'nondeterministic-workflows.ts'),
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
    });
    const codePath = path.join(tmpdir(), `nondeterministic-${process.pid}.js`);
    writeFileSync(codePath, code);
    for (const f of histories) {
      await assert.rejects(
        Worker.runReplayHistory({ workflowBundle: { codePath }, replayName: f }, load(f), jobIdOf(f)),
        (err: unknown) => err instanceof DeterminismViolationError && /Nondeterminism/.test((err as Error).message),
        `${f} must fail to replay`,
      );
    }
  });
});
