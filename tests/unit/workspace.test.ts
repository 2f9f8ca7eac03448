import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileResource, resolveInWorkspace } from '../../src/tools/workspace.js';
import { tempDir } from '../helpers/harness.js';

describe('resolveInWorkspace', () => {
  const ws = realpathSync(tempDir());
  const outside = realpathSync(tempDir('dagent-out-'));
  mkdirSync(path.join(ws, 'sub'));
  symlinkSync(outside, path.join(ws, 'out-link'));
  symlinkSync(path.join(ws, 'sub'), path.join(ws, 'in-link'));

  it('resolves relative paths, existing or not', async () => {
    assert.equal(await resolveInWorkspace(ws, 'sub/new/file.txt'), path.join(ws, 'sub/new/file.txt'));
    assert.equal(await resolveInWorkspace(ws, './sub/../a.txt'), path.join(ws, 'a.txt'));
    assert.equal(await resolveInWorkspace(ws, '.'), ws);
  });

  it('refuses .., absolute paths and symlinks that leave the workspace', async () => {
    await assert.rejects(resolveInWorkspace(ws, '../x'), /outside the workspace/);
    await assert.rejects(resolveInWorkspace(ws, '/etc/passwd'), /outside the workspace/);
    await assert.rejects(resolveInWorkspace(ws, 'out-link/x.txt'), /through a symbolic link/);
    await assert.rejects(resolveInWorkspace(ws, 'out-link'), /through a symbolic link/);
  });

  it('follows symlinks that stay inside, so one file has one resource key', async () => {
    assert.equal(await resolveInWorkspace(ws, 'in-link/f.txt'), path.join(ws, 'sub/f.txt'));
    assert.equal(await fileResource(ws, 'in-link/f.txt'), await fileResource(ws, 'sub/./f.txt'));
  });
});
