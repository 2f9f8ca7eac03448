import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { writeRegularFile } from '../safe-fs.js';
import { fileResource, resolveInWorkspace } from '../workspace.js';

export const writeFileTool = defineTool({
  name: 'write_file',
  description: 'Write a whole UTF-8 text file in the workspace (created or replaced; parent folders created).',
  input: z.object({
    path: z.string().min(1).describe('Path relative to the workspace'),
    content: z.string().describe('The complete new content of the file'),
  }),
  effect: 'write',
  idempotent: true,
  resources: async ({ path }, ws) => [await fileResource(ws, path)],
  execute: async ({ path, content }, ctx) => {
    const real = await resolveInWorkspace(ctx.workspace, path);
    await mkdir(dirname(real), { recursive: true });
    await writeRegularFile(real, path, content);
    return `Wrote ${Buffer.byteLength(content)} bytes to ${path}.`;
  },
});
