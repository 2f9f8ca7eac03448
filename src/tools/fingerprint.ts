import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseFileKey, type ResourceContext } from './workspace.js';

// What a cached read depends on: for each file it read, identity, size and change times. A read
// is cached only when every resource is a regular file that has not changed for a while: a change
// within the file system's timestamp granularity could otherwise leave the fingerprint as it was.

/** A file changed more recently than this is not cached (the "racily clean" rule of git's index). */
export const SETTLED_MS = 2_000;

/** The fingerprint of a read's resources in a workspace on this host, or null when it must not be cached. */
export async function fingerprint(ws: ResourceContext, keys: string[], now = Date.now()): Promise<string[] | null> {
  const files = keys.map(parseFileKey);
  if (!files.length || !ws.onThisHost || files.some((f) => f?.workspaceId !== ws.workspaceId)) return null;
  const out: string[] = [];
  for (const f of files) {
    const s = await stat(path.join(ws.workspace, f!.relPath), { bigint: true }).catch(() => null);
    if (!s?.isFile()) return null;
    const changedMs = Number((s.mtimeNs > s.ctimeNs ? s.mtimeNs : s.ctimeNs) / 1_000_000n);
    if (now - changedMs < SETTLED_MS) return null;
    out.push(`${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`);
  }
  return out;
}

export const sameFingerprint = (a: string[], b: string[] | null) =>
  b !== null && a.length === b.length && a.every((x, i) => x === b[i]);
