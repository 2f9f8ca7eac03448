import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { protectedDirs } from '../workspace.js';

const SKIP = new Set(['.git', 'node_modules']);

/**
 * Yields entries under `dir` (relative paths, sorted), skipping .git, node_modules and the
 * orchestrator's own folders, never following symbolic links: `isFile` is true only for regular files.
 */
export async function* walkFiles(
  dir: string,
  maxDepth = 20,
  rel = '',
  skipDirs?: Set<string>,
): AsyncGenerator<{ rel: string; isDir: boolean; isFile: boolean }> {
  const skip = skipDirs ?? new Set(await protectedDirs(dir));
  const entries = (await readdir(path.join(dir, rel), { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  );
  for (const e of entries) {
    if (SKIP.has(e.name)) continue;
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory() && skip.has(path.join(dir, child))) continue;
    yield { rel: child, isDir: e.isDirectory(), isFile: e.isFile() };
    if (e.isDirectory() && maxDepth > 1) yield* walkFiles(dir, maxDepth - 1, child, skip);
  }
}
