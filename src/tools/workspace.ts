import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { contentDir, dataDir } from '../config.js';
import { ToolInputError } from './define-tool.js';

const inside = (root: string, p: string) => p === root || p.startsWith(root + path.sep);

/**
 * The orchestrator's own folders (data folder: pid files, the server's database; content store):
 * when they sit inside a workspace, tools must not touch them (a model that rewrote a blob or a
 * pid file could change another job's audit, or make `dagent down` kill another process).
 */
export async function protectedDirs(workspaceRoot: string): Promise<string[]> {
  const dirs = await Promise.all([dataDir(), contentDir()].map((d) => realpathAllowMissing(d)));
  // A workspace that itself lies in the data folder (the demo's copy) may use its own files.
  return dirs.filter((d) => !inside(d, workspaceRoot));
}

/**
 * Resolves `p` inside the workspace to a real absolute path, following symlinks of every part
 * that exists. Refuses anything that ends up outside the workspace. The path need not exist.
 */
export async function resolveInWorkspace(workspace: string, p: string): Promise<string> {
  const root = await realpath(workspace);
  const wanted = path.resolve(root, p);
  if (!inside(root, wanted)) throw new ToolInputError(`Path '${p}' is outside the workspace; use a path inside it.`);
  const real = await realpathAllowMissing(wanted);
  if (!inside(root, real)) {
    throw new ToolInputError(`Path '${p}' leads outside the workspace through a symbolic link; use a path inside it.`);
  }
  for (const d of await protectedDirs(root)) {
    if (inside(d, real)) {
      throw new ToolInputError(`Path '${p}' is the orchestrator's own data (${d}); tools do not touch it.`);
    }
  }
  return real;
}

/**
 * The real path of `p` (absolute), following symlinks of every part that exists. A dangling
 * symbolic link counts as the path it points to, not as a missing name: writing through it would
 * create its target.
 */
export async function realpathAllowMissing(p: string, hops = 0): Promise<string> {
  if (hops > 40) throw new ToolInputError(`Path '${p}' goes through too many symbolic links.`);
  const missing: string[] = [];
  let existing = path.resolve(p);
  for (;;) {
    try {
      existing = await realpath(existing);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      const st = await lstat(existing).catch(() => null);
      if (st?.isSymbolicLink()) {
        const target = path.resolve(path.dirname(existing), await readlink(existing));
        return realpathAllowMissing(path.join(target, ...missing), hops + 1);
      }
      missing.unshift(path.basename(existing));
      existing = path.dirname(existing);
    }
  }
  return path.join(existing, ...missing);
}

/** The resource key of a file: its real path, so every spelling of one file is one key. */
export async function fileResource(workspace: string, p: string): Promise<string> {
  return fileKey(await resolveInWorkspace(workspace, p));
}

export const fileKey = (realPath: string) => `file:${realPath}`;
