import { z } from 'zod';
import { defineTool, ToolInputError } from '../define-tool.js';
import { readRegularFile, writeRegularFile } from '../safe-fs.js';
import { fileResource, resolveInWorkspace } from '../workspace.js';

export const editFileTool = defineTool({
  name: 'edit_file',
  description: 'Replace one exact occurrence of old_text with new_text in a workspace file.',
  input: z.object({
    path: z.string().min(1),
    old_text: z.string().min(1).describe('Text that occurs exactly once in the file'),
    new_text: z.string(),
  }),
  effect: 'write',
  resources: async ({ path }, ws) => [await fileResource(ws, path)],
  execute: async ({ path, old_text, new_text }, ctx) => {
    const real = await resolveInWorkspace(ctx.workspace, path);
    const text = await readRegularFile(real, path);
    const count = text.split(old_text).length - 1;
    if (count !== 1) {
      throw new ToolInputError(
        `old_text occurs ${count} times in ${path}; it must occur exactly once. Include more surrounding text.`,
      );
    }
    await writeRegularFile(
      real,
      path,
      text.replace(old_text, () => new_text),
    );
    return `Edited ${path}.`;
  },
});
