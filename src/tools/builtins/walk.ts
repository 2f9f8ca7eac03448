import { readdir } from 'node:fs/promises';
import path from 'node:path';

const SKIP = new Set(['.git', 'node_modules']);

/**
 * Yields entries under `dir` (relative paths, sorted), skipping .git and node_modules, never
 * following symbolic links: `isFile` is true only for regular files.
 */
export async function* walkFiles(
  dir: string,
  maxDepth = 20,
  rel = '',
): AsyncGenerator<{ rel: string; isDir: boolean; isFile: boolean }> {
  const entries = (await readdir(path.join(dir, rel), { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  );
  for (const e of entries) {
    if (SKIP.has(e.name)) continue;
    const child = rel ? `${rel}/${e.name}` : e.name;
    yield { rel: child, isDir: e.isDirectory(), isFile: e.isFile() };
    if (e.isDirectory() && maxDepth > 1) yield* walkFiles(dir, maxDepth - 1, child);
  }
}
