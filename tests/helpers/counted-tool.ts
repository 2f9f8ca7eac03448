import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';

/** `append_once`: a write that is not idempotent and records each run (`<job> <call> <line>`) in `runs`. */
export function countedWrite(runs: string[]) {
  return defineTool({
    name: 'append_once',
    description: 'Append a line (not idempotent).',
    input: z.object({ line: z.string() }),
    effect: 'write',
    execute: ({ line }, ctx) => {
      runs.push(`${ctx.jobId} ${ctx.callId} ${line}`);
      return `appended ${line}`;
    },
  });
}
