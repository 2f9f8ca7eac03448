import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { resolveInWorkspace } from '../workspace.js';
import { walkFiles } from './walk.js';

const LIMIT = 500;

export const listFilesTool = defineTool({
  name: 'list_files',
  description: 'List files and folders under a workspace folder (folders end with /).',
  input: z.object({
    path: z.string().default('.').describe('Folder relative to the workspace'),
    depth: z.number().int().min(1).max(20).default(3),
  }),
  effect: 'read',
  execute: async ({ path, depth }, ctx) => {
    const dir = await resolveInWorkspace(ctx.workspace, path);
    const lines: string[] = [];
    for await (const f of walkFiles(dir, depth)) {
      if (lines.length === LIMIT) return `${lines.join('\n')}\n…[stopped at ${LIMIT} entries]`;
      lines.push(f.isDir ? `${f.rel}/` : f.rel);
    }
    return lines.length ? lines.join('\n') : '(empty folder)';
  },
});
