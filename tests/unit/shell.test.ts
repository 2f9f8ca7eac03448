import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { defaultPolicy } from '../../src/policy/index.js';
import type { ShellSettings } from '../../src/policy/types.js';
import { bubblewrapStatus } from '../../src/tools/shell/sandbox.js';
import { shellTool } from '../../src/tools/shell/tool.js';
import { tempDir, toolContext } from '../helpers/harness.js';

const withShell = (shell: Partial<ShellSettings>) => {
  const p = defaultPolicy();
  return { ...p, shell: { ...p.shell, ...shell } };
};
const run = (command: string, o: { timeout?: number; shell?: Partial<ShellSettings>; workspace?: string } = {}) =>
  Promise.resolve(
    shellTool.execute(
      { command, timeout_seconds: o.timeout ?? 10 },
      { ...toolContext(o.workspace), policy: withShell(o.shell ?? {}) },
    ),
  );
const pidsOf = (pattern: string) => {
  try {
    return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
};

for (const sandbox of ['bwrap', 'none'] as const) {
  describe(`shell tool (sandbox: ${sandbox})`, { skip: sandbox === 'bwrap' && !bubblewrapStatus().ok }, () => {
    const o = { shell: { sandbox } };

    it('runs in the workspace and reports the exit code', async () => {
      const out = await run('pwd; echo err >&2; exit 3', o);
      assert.match(out, /^exit code 3\n\/.*dagent-ws-.*\nerr\n/);
    });

    it('hides API keys and secrets from the command', async () => {
      process.env.OPENAI_API_KEY = 'sk-test-should-not-leak';
      process.env.MY_SERVICE_TOKEN = 'tok-should-not-leak';
      try {
        const out = await run('env', o);
        assert.ok(!out.includes('should-not-leak'), out);
        assert.match(out, /PATH=/);
      } finally {
        delete process.env.OPENAI_API_KEY;
        delete process.env.MY_SERVICE_TOKEN;
      }
    });

    it('kills the command at its timeout', async () => {
      const t0 = Date.now();
      const out = await run('sleep 30; echo never', { ...o, timeout: 1 });
      assert.match(out, /^killed after 1s timeout/);
      assert.ok(Date.now() - t0 < 5_000);
    });

    it('keeps the beginning and the end of long output, saying how much was dropped between', async () => {
      const out = await run(
        "echo FIRST; head -c 200000 /dev/zero | tr '\\0' 'a'; echo; echo LAST-LINE-WITH-THE-ERROR",
        o,
      );
      assert.match(out, /^exit code 0\nFIRST\n/);
      assert.match(out, /LAST-LINE-WITH-THE-ERROR\n/);
      assert.match(out, /…\[\d+ bytes of output dropped here; the first and last 65536 bytes are kept\]…/);
      assert.ok(out.length < 70_000);
    });

    it('leaves no process behind: `sleep … &`, nohup and setsid children die with the call', async () => {
      const tag = `${4000 + Math.floor(Math.random() * 1000)}.${process.pid}`;
      const t0 = Date.now();
      const out = await run(
        `sleep ${tag} & nohup sleep ${tag}1 >/dev/null 2>&1 & setsid sleep ${tag}2 & echo started`,
        o,
      );
      assert.match(out, /^exit code 0\nstarted/);
      assert.ok(Date.now() - t0 < 5_000, 'the call does not wait for its background children');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(pidsOf(`sleep ${tag}`), '', 'no sleep survives the call');
    });

    it('applies resource limits (file size)', async () => {
      const out = await run('head -c 3000000 /dev/zero > big; ls -l big | cut -d" " -f5', {
        shell: { sandbox, limits: { cpuSeconds: 10, memoryMb: 1024, processes: 64, fileSizeMb: 1 } },
      });
      assert.match(out, /1048576/);
    });
  });
}

describe('shell tool inside bubblewrap', { skip: !bubblewrapStatus().ok && 'bubblewrap is not usable here' }, () => {
  it('cannot write outside the workspace, and /tmp is its own', async () => {
    const outside = path.join(os.tmpdir(), `dagent-outside-${process.pid}`);
    const home = path.join(os.homedir(), `dagent-outside-${process.pid}`);
    const out = await run(
      `echo x > ${outside}; echo y > ${home}; echo z > /usr/dagent-x; echo ok > inside; cat inside`,
    );
    assert.ok(!existsSync(outside) && !existsSync(home) && !existsSync('/usr/dagent-x'), out);
    assert.match(out, /ok/);
  });

  it("sees its own processes only: not the worker's environment or anything else", async () => {
    process.env.DAGENT_TEST_VISIBLE = 'worker-only-value';
    try {
      const out = await run(
        'ps -e -o pid=,comm= | wc -l; cat /proc/1/environ | tr "\\0" "\\n"; echo; cat /proc/$PPID/environ',
      );
      assert.ok(!out.includes('worker-only-value'), out);
      const count = Number(/^exit code \d+\n\s*(\d+)/.exec(out)?.[1]);
      assert.ok(count > 0 && count < 8, `a handful of processes in its namespace: ${out}`);
    } finally {
      delete process.env.DAGENT_TEST_VISIBLE;
    }
  });

  it('has no network unless the policy grants it', async () => {
    const out = await run('cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "');
    assert.deepEqual(out.split('\n').slice(1).filter(Boolean), ['lo']);
  });

  it('cannot read the shadow file, and does not see the orchestrator folders inside the workspace', async () => {
    const ws = tempDir();
    const dataDir = path.join(ws, '.dagent');
    const prev = process.env.DAGENT_HOME;
    process.env.DAGENT_HOME = dataDir;
    try {
      execFileSync('mkdir', ['-p', dataDir]);
      writeFileSync(path.join(dataDir, 'worker.pid'), '1');
      const out = await run(
        'cat /etc/shadow 2>/dev/null | wc -c; ls -A .dagent | wc -l; echo 999 > .dagent/worker.pid',
        {
          workspace: ws,
        },
      );
      assert.match(out, /^exit code 0\n0\n0\n/);
      assert.equal(readFileSync(path.join(dataDir, 'worker.pid'), 'utf8'), '1');
    } finally {
      if (prev === undefined) delete process.env.DAGENT_HOME;
      else process.env.DAGENT_HOME = prev;
    }
  });
});

describe('shell tool without the sandbox', () => {
  it('says in its result that the command was not contained', async () => {
    const out = await run('true', { shell: { sandbox: 'none' } });
    assert.match(out, /\[warning: not contained/);
  });
});
