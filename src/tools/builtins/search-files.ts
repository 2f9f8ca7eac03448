import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, ToolInputError } from '../define-tool.js';
import { resolveInWorkspace } from '../workspace.js';
import { walkFiles } from './walk.js';

const LIMIT = 200;

export const searchFilesTool = defineTool({
  name: 'search_files',
  description: 'Search text files under a workspace folder for a regular expression; prints path:line: text.',
  input: z.object({
    pattern: z.string().min(1).describe('JavaScript regular expression'),
    path: z.string().default('.'),
    ignore_case: z.boolean().default(false),
  }),
  effect: 'read',
  execute: async ({ pattern, path: where, ignore_case }, ctx) => {
    let re: RegExp;
    try {
      re = new RegExp(pattern, ignore_case ? 'i' : '');
    } catch (err) {
      throw new ToolInputError(`pattern is not a valid regular expression: ${(err as Error).message}`);
    }
    const dir = await resolveInWorkspace(ctx.workspace, where);
    const hits: string[] = [];
    for await (const f of walkFiles(dir)) {
      if (f.isDir) continue;
      const text = await readFile(path.join(dir, f.rel), 'utf8').catch(() => '');
      if (text.includes('\u0000')) continue;
      const lines = text.split('\n');
      for (let i = 0; i < lines.length; i++) {
        if (!re.test(lines[i]!)) continue;
        if (hits.length === LIMIT) return `${hits.join('\n')}\n…[stopped at ${LIMIT} matches]`;
        hits.push(`${f.rel}:${i + 1}: ${lines[i]!.slice(0, 300)}`);
      }
    }
    return hits.length ? hits.join('\n') : 'No matches.';
  },
});
