import { RE2JS } from 're2js';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, ToolInputError } from '../define-tool.js';
import { readIfRegular } from '../safe-fs.js';
import { resolveInWorkspace } from '../workspace.js';
import { walkFiles } from './walk.js';

const LIMIT = 200;
/** Larger files are skipped. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;

export const searchFilesTool = defineTool({
  name: 'search_files',
  description:
    'Search text files under a workspace folder for a regular expression (RE2 syntax: linear time, no lookaround or backreferences); prints path:line: text.',
  input: z.object({
    pattern: z.string().min(1).max(2000).describe('Regular expression, RE2 syntax'),
    path: z.string().default('.'),
    ignore_case: z.boolean().default(false),
  }),
  effect: 'read',
  execute: async ({ pattern, path: where, ignore_case }, ctx) => {
    // The model's pattern runs in RE2 (linear time): no pattern can pin the worker's thread.
    let re: RE2JS;
    try {
      re = RE2JS.compile(pattern, ignore_case ? RE2JS.CASE_INSENSITIVE : 0);
    } catch (err) {
      throw new ToolInputError(
        `pattern is not a valid RE2 regular expression (${(err as Error).message}); lookaround and backreferences are not supported.`,
      );
    }
    const dir = await resolveInWorkspace(ctx.workspace, where);
    const hits: string[] = [];
    for await (const f of walkFiles(dir)) {
      if (!f.isFile) continue; // folders, symbolic links, pipes and devices are never read
      const text = await readIfRegular(path.join(dir, f.rel), MAX_FILE_BYTES);
      if (text === null || text.includes('\u0000')) continue;
      const lines = text.split('\n');
      for (let i = 0; i < lines.length; i++) {
        if (!re.matcher(lines[i]!).find()) continue;
        if (hits.length === LIMIT) return `${hits.join('\n')}\n…[stopped at ${LIMIT} matches]`;
        hits.push(`${f.rel}:${i + 1}: ${lines[i]!.slice(0, 300)}`);
      }
    }
    return hits.length ? hits.join('\n') : 'No matches.';
  },
});
