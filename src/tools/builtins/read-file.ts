import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { readRegularFile } from '../safe-fs.js';
import { fileResource, resolveInWorkspace } from '../workspace.js';

export const readFileTool = defineTool({
  name: 'read_file',
  description: 'Read a UTF-8 text file from the workspace.',
  input: z.object({ path: z.string().min(1).describe('Path relative to the workspace') }),
  effect: 'read',
  resources: async ({ path }, ws) => [await fileResource(ws, path)],
  execute: async ({ path }, ctx) => readRegularFile(await resolveInWorkspace(ctx.workspace, path), path),
});
