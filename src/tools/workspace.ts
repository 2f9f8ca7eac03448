import { lstat, readlink, realpath } from 'node:fs/promises';
import { createHash } from 'node:crypto';
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

/**
 * Where a call's workspace is, for naming its resources: the folder as the job gave it, the id its
 * files share on every host, and whether that folder is on this host. Off the workspace's host
 * (a model call on the shared queue), keys are computed from the path's text; the tool activity,
 * which runs where the files are, checks them against the real paths before it runs the call.
 */
export interface ResourceContext {
  workspace: string;
  workspaceId: string;
  onThisHost: boolean;
}

/**
 * The id of a workspace nobody declared: its folder's name and a hash of its real path. The same
 * folder gets the same id on every call; a folder elsewhere (another host's copy) gets another.
 */
export function derivedWorkspaceId(realRoot: string): string {
  const name = path
    .basename(realRoot)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^[._-]+/, '')
    .slice(0, 40);
  return `${name || 'root'}-${createHash('sha256').update(realRoot).digest('hex').slice(0, 10)}`;
}

/** The resource context of a workspace folder on this host, under its declared id or the derived one. */
export async function localWorkspace(workspace: string, workspaceId?: string): Promise<ResourceContext> {
  const root = await realpath(workspace);
  return { workspace: root, workspaceId: workspaceId ?? derivedWorkspaceId(root), onThisHost: true };
}

/**
 * The resource key of a file: `file:<workspace id>/<path inside the workspace>`, the same on every
 * host. On the workspace's host the path is the real one, so every spelling of one file is one key.
 */
export async function fileResource(ws: string | ResourceContext, p: string): Promise<string> {
  const ctx = typeof ws === 'string' ? await localWorkspace(ws) : ws;
  if (!ctx.onThisHost) return fileKey(ctx.workspaceId, lexicalRelative(ctx.workspace, p));
  const root = await realpath(ctx.workspace);
  return fileKey(ctx.workspaceId, path.relative(root, await resolveInWorkspace(root, p)));
}

/** `p` inside `root` by its text alone (no file system): refuses a path that leaves it. */
export function lexicalRelative(root: string, p: string): string {
  const rel = path.isAbsolute(p) ? path.relative(path.resolve(root), p) : path.normalize(p);
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel))
    throw new ToolInputError(`Path '${p}' is outside the workspace; use a path inside it.`);
  return rel === '.' ? '' : rel;
}

export const fileKey = (workspaceId: string, relPath: string) =>
  `file:${workspaceId}/${relPath.split(path.sep).join('/')}`;

/** The workspace id and relative path of a file key; null for other keys. */
export function parseFileKey(key: string): { workspaceId: string; relPath: string } | null {
  const m = /^file:([^/]+)\/(.*)$/s.exec(key);
  return m ? { workspaceId: m[1]!, relPath: m[2]! } : null;
}
