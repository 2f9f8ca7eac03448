// A plugin tool for the load-and-fault benchmark (DAGENT_PLUGINS): a write that is not idempotent,
// appending its job and call id to the workspace's ledger under the file's lock. Counting the
// ledger's lines against the calls history recorded finds any call that ran twice.
import { appendFile } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { fileResource, resolveInWorkspace } from '../../src/tools/workspace.js';

export const appendLedger = defineTool({
  name: 'append_ledger',
  description: 'Append this call to the ledger file (not idempotent).',
  input: z.object({ path: z.string() }),
  effect: 'write',
  idempotent: false,
  resources: async ({ path }, ws) => [await fileResource(ws, path)],
  execute: async ({ path }, ctx) => {
    const real = await resolveInWorkspace(ctx.workspace, path);
    await new Promise((r) => setTimeout(r, 20));
    await appendFile(real, `${ctx.jobId} ${ctx.callId} ${process.env.DAGENT_HOST_NAME ?? '?'}\n`);
    return `appended ${ctx.callId}`;
  },
});
