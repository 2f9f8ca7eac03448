import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shellTool } from '../../src/tools/builtins/shell.js';
import { toolContext } from '../helpers/harness.js';

const run = (command: string, timeout_seconds = 10) =>
  Promise.resolve(shellTool.execute({ command, timeout_seconds }, toolContext()));

describe('shell tool', () => {
  it('runs in the workspace and reports the exit code', async () => {
    const out = await run('pwd; echo err >&2; exit 3');
    assert.match(out, /^exit code 3\n\/.*dagent-ws-.*\nerr\n$/);
  });

  it('hides API keys and secrets from the command', async () => {
    process.env.OPENAI_API_KEY = 'sk-test-should-not-leak';
    process.env.MY_SERVICE_TOKEN = 'tok-should-not-leak';
    try {
      const out = await run('env');
      assert.ok(!out.includes('should-not-leak'), out);
      assert.match(out, /PATH=/);
    } finally {
      delete process.env.OPENAI_API_KEY;
      delete process.env.MY_SERVICE_TOKEN;
    }
  });

  it('kills the command at its timeout', async () => {
    const t0 = Date.now();
    const out = await run('sleep 30; echo never', 1);
    assert.match(out, /^killed after 1s timeout/);
    assert.ok(Date.now() - t0 < 5_000);
  });

  it('caps the output and says how much was dropped', async () => {
    const out = await run("head -c 200000 /dev/zero | tr '\\0' 'a'");
    assert.match(out, /output capped at 65536 bytes; \d+ more bytes dropped/);
    assert.ok(out.length < 70_000);
  });
});
