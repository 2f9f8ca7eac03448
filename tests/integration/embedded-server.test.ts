import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { freePort } from '../../src/temporal/ephemeral-server.js';
import { dagent } from '../helpers/cli.js';
import { tempDir, uniqueId } from '../helpers/harness.js';

const DEMO = fileURLToPath(new URL('../../demo/workspace', import.meta.url));

describe('the embedded server (dagent up / down)', () => {
  it('keeps jobs in its SQLite file across a restart, and stops what it started', async () => {
    const home = tempDir('dagent-home-');
    const env = {
      TEMPORAL_ADDRESS: '',
      DAGENT_HOME: home,
      DAGENT_TEMPORAL_PORT: String(await freePort()),
      DAGENT_UI_PORT: String(await freePort()),
    };
    const ws = tempDir();
    cpSync(DEMO, ws, { recursive: true });
    const jobId = uniqueId('embedded');
    try {
      const up = await dagent(['up'], env);
      assert.equal(up.code, 0, up.stderr);
      assert.match(up.stderr, /Starting the embedded Temporal dev server .*temporal\.db/);
      assert.match(up.stderr, /Worker started \(pid \d+/);
      assert.ok(existsSync(path.join(home, 'temporal.db')));

      const run = await dagent(['run', 'demo task', '--workspace', ws, '--id', jobId, '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /Using the worker `dagent up` started \(pid \d+\) on task queue 'dagent'/);
      assert.equal(JSON.parse(run.stdout).status, 'completed');

      const down = await dagent(['down'], env);
      assert.match(down.stderr, /Worker: stopped/);
      assert.match(down.stderr, /Temporal dev server: stopped/);
      const gone = await dagent(['status', jobId], env);
      assert.equal(gone.code, 1);
      assert.match(gone.stderr, /Cannot reach Temporal at 127\.0\.0\.1:\d+.*\n.*dagent up/);

      assert.equal((await dagent(['up'], env)).code, 0);
      const after = await dagent(['status', jobId, '--json'], env);
      assert.equal(after.code, 0, after.stderr);
      assert.deepEqual([JSON.parse(after.stdout).status, JSON.parse(after.stdout).steps], ['completed', 4]);
      assert.match(readFileSync(path.join(ws, 'STATUS.md'), 'utf8'), /Port: 8080/);
    } finally {
      await dagent(['down'], env);
    }
  });
});
