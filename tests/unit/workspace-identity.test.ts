import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, workspaceList } from '../../src/config.js';
import { wroteKeys } from '../../src/client/find-jobs.js';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { derivedWorkspaceId, fileResource, parseFileKey } from '../../src/tools/workspace.js';
import { isRunnable, type PlannedCall } from '../../src/workflow-safe/types.js';
import { tempDir, toolContext } from '../helpers/harness.js';

const resources = (c: PlannedCall) => {
  assert.ok(isRunnable(c), `expected a runnable call, got: ${'rejected' in c ? c.rejected : ''}`);
  return c.resources;
};
const read = (p: string) => ({ id: 'c1', name: 'read_file', rawArguments: JSON.stringify({ path: p }) });

describe('workspace identity: file keys that mean the same on every host', () => {
  // Two hosts' folders for one declared workspace (a shared mount seen at two paths).
  const hostA = realpathSync(tempDir('dagent-host-a-'));
  const hostB = path.join(realpathSync(tempDir('dagent-host-b-')), 'mount');
  symlinkSync(hostA, hostB);
  mkdirSync(path.join(hostA, 'src'));
  writeFileSync(path.join(hostA, 'src/a.ts'), 'a');
  symlinkSync('src/a.ts', path.join(hostA, 'alias.ts'));
  const onA = new ToolRegistry(builtinTools, undefined, new Map([['repo', hostA]]));
  const onB = new ToolRegistry(builtinTools, undefined, new Map([['repo', hostB]]));
  const elsewhere = new ToolRegistry(builtinTools); // a model worker without the workspace

  it('a declared workspace names a file by its id and relative path, on every host and off them', async () => {
    const job = { workspace: '/somewhere/on/the/cli/host', workspaceId: 'repo' };
    const keys = await Promise.all(
      [onA, onB, elsewhere].map(async (r) => resources(await r.prepareCall({ ...read('src/./a.ts'), ...job }))),
    );
    assert.deepEqual(keys, [['file:repo/src/a.ts'], ['file:repo/src/a.ts'], ['file:repo/src/a.ts']]);
    assert.deepEqual(parseFileKey('file:repo/src/a.ts'), { workspaceId: 'repo', relPath: 'src/a.ts' });
  });

  it('off the workspace host, a path that leaves it by its text is refused before anything runs', async () => {
    const c = await elsewhere.prepareCall({ ...read('src/../../x'), workspace: '/w', workspaceId: 'repo' });
    assert.ok(!isRunnable(c));
    assert.match(c.rejected, /outside the workspace/);
  });

  it('a key planned by text that the real path contradicts (a symbolic link) is refused where the files are', async () => {
    const planned = await elsewhere.prepareCall({ ...read('alias.ts'), workspace: '/w', workspaceId: 'repo' });
    assert.deepEqual(resources(planned), ['file:repo/alias.ts']);
    const ws = await onA.workspaceFor({ workspace: '/w', workspaceId: 'repo' });
    const result = await onA.execute(
      { id: 'c1', name: 'read_file', args: { path: 'alias.ts' }, resources: ['file:repo/alias.ts'] },
      toolContext(ws.workspace),
      ws,
    );
    assert.equal(result.isError, true);
    assert.match(
      result.output,
      /did not run: on the workspace's host it touches file:repo\/src\/a\.ts, not file:repo\/alias\.ts/,
    );
    // On the host itself the planner resolves the link: one file, one key, and the call runs.
    const here = await onA.prepareCall({ ...read('alias.ts'), workspace: '/w', workspaceId: 'repo' });
    assert.deepEqual(resources(here), ['file:repo/src/a.ts']);
    const ok = await onA.execute(
      { id: 'c2', name: 'read_file', args: { path: 'alias.ts' }, resources: resources(here) },
      toolContext(ws.workspace),
      ws,
    );
    assert.deepEqual([ok.isError, ok.output], [false, 'a']);
  });

  it('an undeclared workspace gets an id from its real path: the same for every spelling, another for another folder', async () => {
    const other = realpathSync(tempDir('dagent-host-a-'));
    assert.equal(derivedWorkspaceId(hostA), derivedWorkspaceId(realpathSync(hostB)));
    assert.notEqual(derivedWorkspaceId(hostA), derivedWorkspaceId(other));
    assert.match(derivedWorkspaceId(hostA), /^dagent-host-a-\w+-[0-9a-f]{10}$/);
    assert.equal(await fileResource(hostB, 'alias.ts'), `file:${derivedWorkspaceId(hostA)}/src/a.ts`);
  });

  it('`jobs --wrote` takes a path inside the workspace and finds the same key', async () => {
    const id = derivedWorkspaceId(hostA);
    assert.deepEqual(await wroteKeys({ wrote: 'src/a.ts', workspace: hostB }), [`file:${id}/src/a.ts`]);
    assert.deepEqual(await wroteKeys({ wrote: path.join(hostA, 'alias.ts'), workspace: hostA }), [
      `file:${id}/src/a.ts`,
    ]);
    assert.deepEqual(await wroteKeys({ wrote: 'src/a.ts', workspaceId: 'repo' }), ['file:repo/src/a.ts']);
    assert.deepEqual(await wroteKeys({ wrote: 'src/a.ts', workspace: hostB, workspaceId: 'repo' }), [
      'file:repo/src/a.ts',
    ]);
    assert.deepEqual(await wroteKeys({ wrote: 'file:repo/x' }), ['file:repo/x']);
    // No workspace named: the file's key in every folder above it, the workspace's among them.
    const anywhere = await wroteKeys({ wrote: path.join(hostB, 'src', 'a.ts') });
    assert.ok(anywhere.includes(`file:${id}/src/a.ts`), anywhere.join(' '));
    assert.equal(anywhere.length, path.join(hostA, 'src').split(path.sep).length + 1);
    assert.ok(anywhere.includes(`file:${path.join(hostA, 'src', 'a.ts')}`), 'and the key jobs recorded before ids');
    await assert.rejects(
      wroteKeys({ wrote: '/etc/passwd', workspace: hostA }),
      /--wrote \/etc\/passwd: not a file of the workspace/,
    );
  });

  it('declared workspaces are checked: id=folder, valid ids, each once', () => {
    assert.deepEqual(workspaceList(' repo=/srv/repo , docs=rel ', 'X'), {
      repo: '/srv/repo',
      docs: path.resolve('rel'),
    });
    for (const [text, why] of [
      ['repo', /'repo' is not id=folder/],
      ['=/x', /is not id=folder/],
      ['../x=/x', /workspace id '\.\.\/x' is invalid/],
      ['a=/x,a=/y', /'a' is declared twice/],
    ] as const)
      assert.throws(
        () => workspaceList(text, 'DAGENT_WORKSPACES'),
        (e: Error) => e instanceof ConfigError && why.test(e.message),
      );
  });
});
