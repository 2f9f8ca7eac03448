import { stat } from 'node:fs/promises';

// What a cached read depends on: for each file it read, identity, size and change times. A read
// is cached only when every resource is a regular file that has not changed for a while: a change
// within the file system's timestamp granularity could otherwise leave the fingerprint as it was.

/** A file changed more recently than this is not cached (the "racily clean" rule of git's index). */
export const SETTLED_MS = 2_000;

const FILE_KEY = 'file:';

/** The fingerprint of a read's resources, or null when it must not be cached. */
export async function fingerprint(keys: string[], now = Date.now()): Promise<string[] | null> {
  if (!keys.length || !keys.every((k) => k.startsWith(FILE_KEY))) return null;
  const out: string[] = [];
  for (const k of keys) {
    const s = await stat(k.slice(FILE_KEY.length), { bigint: true }).catch(() => null);
    if (!s?.isFile()) return null;
    const changedMs = Number((s.mtimeNs > s.ctimeNs ? s.mtimeNs : s.ctimeNs) / 1_000_000n);
    if (now - changedMs < SETTLED_MS) return null;
    out.push(`${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`);
  }
  return out;
}

export const sameFingerprint = (a: string[], b: string[] | null) =>
  b !== null && a.length === b.length && a.every((x, i) => x === b[i]);
