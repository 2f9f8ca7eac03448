import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { tempDir, toolContext } from '../helpers/harness.js';

// A workspace laid out by an attacker (a committed link, or one a shell call made mid-job), and a
// model that asks for the worst: every case ends in an answer the model can read, fast.

const registry = new ToolRegistry(builtinTools);
const ws = realpathSync(tempDir());
const outside = realpathSync(tempDir('dagent-out-'));
const ctx = toolContext(ws);
const run = async (name: string, args: Record<string, unknown>) => {
  const planned = await registry.prepareCall({ id: 'c', name, rawArguments: JSON.stringify(args), workspace: ws });
  if (planned.rejected !== undefined) return { rejected: planned.rejected };
  return registry.execute({ id: 'c', name, args: planned.args }, ctx);
};

describe('a hostile workspace', () => {
  it('a dangling symbolic link to a missing file outside: write_file refuses, nothing is created outside', async () => {
    symlinkSync(path.join(outside, 'planted.txt'), path.join(ws, 'dangling'));
    const r = await run('write_file', { path: 'dangling', content: 'gotcha' });
    assert.match(
      String('rejected' in r ? r.rejected : r.output),
      /leads outside the workspace through a symbolic link/,
    );
    assert.equal(existsSync(path.join(outside, 'planted.txt')), false);
    // Even past the check (a link swapped in afterwards), the write does not follow a final link.
    await assert.rejects(
      registry
        .execute({ id: 'c', name: 'write_file', args: { path: 'dangling', content: 'x' } }, { ...ctx, workspace: ws })
        .then((x) => {
          if (x.isError) throw new Error(x.output);
        }),
      /outside the workspace|symbolic link/,
    );
    assert.equal(existsSync(path.join(outside, 'planted.txt')), false);
  });

  it('a dangling link that points inside writes its target, inside', async () => {
    symlinkSync('made-by-link.txt', path.join(ws, 'inner-dangling'));
    const r = await run('write_file', { path: 'inner-dangling', content: 'ok' });
    assert.equal('isError' in r && r.isError, false);
    assert.equal(readFileSync(path.join(ws, 'made-by-link.txt'), 'utf8'), 'ok');
  });

  it('search_files does not follow links out of the workspace, nor into devices', async () => {
    writeFileSync(path.join(outside, 'secret.txt'), 'TOPSECRET value\n');
    symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'secret-link.txt'));
    symlinkSync('/dev/zero', path.join(ws, 'zero'));
    writeFileSync(path.join(ws, 'visible.txt'), 'TOPSECRET is not here\n');
    const r = await run('search_files', { pattern: 'TOPSECRET' });
    assert.equal('output' in r && r.output, 'visible.txt:1: TOPSECRET is not here');
  });

  it('a catastrophic pattern ((a+)+$ over a long line) answers at once: RE2 runs in linear time', async () => {
    writeFileSync(path.join(ws, 'aaa.txt'), `${'a'.repeat(5000)}!\n`);
    const started = Date.now();
    const r = await run('search_files', { pattern: '(a+)+$' });
    assert.ok(Date.now() - started < 5_000, 'no backtracking blow-up');
    assert.equal('output' in r && r.output, 'No matches.');
    const bad = await run('search_files', { pattern: '(?<=a)b' });
    assert.match(
      String('output' in bad && bad.output),
      /not a valid RE2 regular expression .*lookaround and backreferences are not supported/,
    );
  });

  it('read_file refuses a named pipe without blocking, four at once', async () => {
    execFileSync('mkfifo', [path.join(ws, 'fifo')]);
    const rs = await Promise.all([1, 2, 3, 4].map(() => run('read_file', { path: 'fifo' })));
    for (const r of rs)
      assert.match(String('output' in r && r.output), /fifo is a named pipe; only regular files can be read/);
    // The thread pool is free: an ordinary read still answers.
    writeFileSync(path.join(ws, 'plain.txt'), 'plain');
    const plain = await run('read_file', { path: 'plain.txt' });
    assert.equal('output' in plain && plain.output, 'plain');
  });

  it('read_file refuses a file larger than it reads at once, saying its size', async () => {
    writeFileSync(path.join(ws, 'big.bin'), '');
    truncateSync(path.join(ws, 'big.bin'), 11 * 1024 * 1024);
    const r = await run('read_file', { path: 'big.bin' });
    assert.match(
      String('output' in r && r.output),
      /big\.bin has 11534336 bytes, more than the 10485760 a tool reads at once/,
    );
  });
});

describe('the data folder inside the workspace', () => {
  it("is out of the tools' reach: no read, no write, not listed", async () => {
    const home = path.join(ws, '.dagent-home');
    const prev = process.env.DAGENT_HOME;
    process.env.DAGENT_HOME = home;
    try {
      mkdirSync(path.join(home, 'content', 'ab'), { recursive: true });
      writeFileSync(path.join(home, 'worker.pid'), '1\n');
      const w = await run('write_file', { path: '.dagent-home/content/ab/blob', content: 'forged' });
      assert.match(String('rejected' in w && w.rejected), /is the orchestrator's own data/);
      const r = await run('read_file', { path: '.dagent-home/worker.pid' });
      assert.match(String('rejected' in r && r.rejected), /is the orchestrator's own data/);
      const l = await run('list_files', { path: '.' });
      assert.doesNotMatch(String('output' in l && l.output), /dagent-home/);
    } finally {
      if (prev === undefined) delete process.env.DAGENT_HOME;
      else process.env.DAGENT_HOME = prev;
    }
  });
});
